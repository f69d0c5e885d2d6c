import { useState } from 'react';
import { lazyNamed, loadOnIntent, WhenOpened } from '../ui/WhenOpened.tsx';

const AddWalletsDialog = lazyNamed(() => import('./AddWalletsDialog.tsx'), 'AddWalletsDialog');

/** Adding wallets to a pool (admins): the network type and how many, asked in a dialog. */
export function AddWallets() {
  const [open, setOpen] = useState(false);
  return (
    <div className="row">
      <button type="button" onClick={() => setOpen(true)} {...loadOnIntent(AddWalletsDialog)}>
        Add wallets…
      </button>
      <span className="muted">More wallets send more transactions per block; each must be funded.</span>
      <WhenOpened open={open}>
        <AddWalletsDialog isOpen={open} onClose={() => setOpen(false)} />
      </WhenOpened>
    </div>
  );
}
