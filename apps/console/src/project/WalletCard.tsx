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
        <dd>{custodyOf(wallet.custody)}</dd>
        <dt>Network</dt>
        <dd>{wallet.networkType}</dd>
        <dt>Owner</dt>
        <dd>{wallet.ownerType === 'dedicated' ? 'dedicated to this project' : 'shared with other projects'}</dd>
      </dl>
    </section>
  );
}

/** Where the wallet's key is kept, as its custodian names it. */
function custodyOf(custody: SystemWallet['custody']): string {
  if (!custody) return 'keys derived by the platform (from-mnemonic)';
  if (custody.provider === 'fireblocks') return `Fireblocks, vault account ${custody.vaultAccountId}`;
  return `AWS KMS, key ${custody.keyArn}`;
}
