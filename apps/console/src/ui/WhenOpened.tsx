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

export type LazyComponent<P> = LazyExoticComponent<FunctionComponent<P>> & { preload: () => void };

/**
 * A component a module exports by name, loaded when first rendered (a chunk of its own), or sooner by `preload`
 * (at most once; a failed load is tried again).
 */
export function lazyNamed<K extends string, P extends object>(
  load: () => Promise<Record<K, FunctionComponent<P>>>,
  name: K,
): LazyComponent<P> {
  let loading: Promise<{ default: FunctionComponent<P> }> | undefined;
  const loadOnce = () => {
    if (!loading) {
      loading = load().then((module) => ({ default: module[name] }));
      loading.catch(() => {
        loading = undefined;
      });
    }
    return loading;
  };
  return Object.assign(lazy(loadOnce), { preload: () => void loadOnce().catch(() => {}) });
}

/**
 * The handlers that start loading a dialog once a person points at or moves to what opens it, so that it is there
 * when they press (on a slow network too).
 */
export const loadOnIntent = (dialog: { preload: () => void }) => ({
  onPointerEnter: dialog.preload,
  onFocus: dialog.preload,
});
