// One formatter: toLocaleString with options makes a new one at every call (a page of 20 transactions spent about
// 140 ms more in them with the CPU slowed 4×, as Lighthouse's mobile run does). Making the first one loads the
// locale's data (another 70–120 ms there), so it is made in a task of its own at start-up (prepareDateFormat), while
// the first view's chunk and calls are on their way, rather than in the render that shows the first dates (an idle
// callback came too late: on a slow phone the browser is first idle once the view has rendered).
let dateTime: Intl.DateTimeFormat | undefined;
const makeDateTime = () => {
  dateTime ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
  return dateTime;
};

/** Makes the date formatter in a task of its own, after the one running. */
export function prepareDateFormat(): void {
  setTimeout(makeDateTime, 0);
}

/** Dates as the reader's locale writes them, with seconds: a transaction's steps are seconds apart. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return makeDateTime().format(new Date(iso));
}

let hourFormat: Intl.DateTimeFormat | undefined;

/** An hour of a chart's table, short (one formatter for all 24 rows of both tables, made when one is first opened). */
export function formatHour(iso: string): string {
  hourFormat ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'short' });
  return hourFormat.format(new Date(iso));
}

/** 0x1234…abcd: enough to recognise, the full value in a title and for copying. */
export function shortHex(value: string, keep = 6): string {
  return value.length > keep * 2 + 3 ? `${value.slice(0, keep + 2)}…${value.slice(-keep)}` : value;
}

/** One argument on one line: a long hex value shortened, a long text cut, every other value whole. */
export function shortArg(arg: string): string {
  if (/^0x[0-9a-fA-F]{14,}$/.test(arg)) return shortHex(arg, 4);
  return arg.length > 24 ? `${arg.slice(0, 22)}…` : arg;
}

/** A transaction's arguments in a list's cell: each one short, at most `max` characters in all. */
export function formatArgs(args: readonly string[], max = 48): string {
  const text = args.map(shortArg).join(', ');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
