import { type FunctionComponent, type LazyExoticComponent, lazy, type ReactNode, Suspense, useState } from 'react';

/**
 * A dialog, mounted the first time it opens and kept from then on (with its state, as a dialog always mounted keeps
 * it): a view's first render neither loads nor runs its dialogs (react-aria with them) until one is asked for.
 */
export function WhenOpened({ open, children }: { open: boolean; children: ReactNode }) {
  const [opened, setOpened] = useState(open);
  if (open && !opened) setOpened(true);
  return opened ? <Suspense fallback={null}>{children}</Suspense> : null;
}

/** A component a module exports by name, loaded when first rendered (a chunk of its own). */
export function lazyNamed<K extends string, P extends object>(
  load: () => Promise<Record<K, FunctionComponent<P>>>,
  name: K,
): LazyExoticComponent<FunctionComponent<P>> {
  return lazy(() => load().then((module) => ({ default: module[name] })));
}
