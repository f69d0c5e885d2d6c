import type { SystemWallet } from '@mountain/public-api-client';

/** One system wallet: address, how its key is kept (custody), network type and owner type. */
export function WalletCard({ title, wallet }: { title: string; wallet: SystemWallet }) {
  return (
    <section className="card" aria-labelledby={`wallet-${wallet.id}`}>
      <h3 id={`wallet-${wallet.id}`}>{title}</h3>
      <dl className="facts">
        <dt>Address</dt>
        <dd className="mono">{wallet.address}</dd>
        <dt>Type</dt>
        <dd>{wallet.type}</dd>
        <dt>Custody</dt>
        <dd>
          {wallet.custody
            ? `${wallet.custody.provider}, vault account ${wallet.custody.vaultAccountId}`
            : 'keys derived by the platform (from-mnemonic)'}
        </dd>
        <dt>Network</dt>
        <dd>{wallet.networkType}</dd>
        <dt>Owner</dt>
        <dd>{wallet.ownerType === 'dedicated' ? 'dedicated to this project' : 'shared with other projects'}</dd>
      </dl>
    </section>
  );
}
