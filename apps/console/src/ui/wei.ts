// Amounts of a network's native coin as the API gives them (wei, decimal strings), written for a person: the coin
// amount first, the exact wei beside it. Plain bigint arithmetic: the first load carries no library for it.

const WEI_PER_COIN = 10n ** 18n;

/** A wei amount as a decimal string is the API's form: digits only, no sign, no leading zero. */
export const isWei = (text: string) => /^(0|[1-9]\d{0,76})$/.test(text);

/** `500000000000000000` → `0.5`: the coin amount of a wei amount, every digit kept. */
export function coinOf(wei: string | bigint): string {
  const value = BigInt(wei);
  const whole = value / WEI_PER_COIN;
  const fraction = (value % WEI_PER_COIN).toString().padStart(18, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole.toString();
}

/** `0.5 ETH (500000000000000000 wei)`. */
export function formatWei(wei: string | bigint, coin = 'ETH'): string {
  return `${coinOf(wei)} ${coin} (${BigInt(wei)} wei)`;
}

/** A spending limit: `no value` when it is 0 (the function may send none), else its amount. */
export function formatLimit(wei: string, coin = 'ETH'): string {
  return BigInt(wei) === 0n ? 'no value' : formatWei(wei, coin);
}
