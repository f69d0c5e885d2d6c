import { Collapsible, useCollapsible } from '@docusaurus/theme-common';
import clsx from 'clsx';
import { type ReactNode, useId } from 'react';
import styles from './styles.module.css';

/** The open or closed state of one toggle button and the panel it shows and hides. */
export function useDisclosure(initiallyOpen = false) {
  const { collapsed, setCollapsed, toggleCollapsed } = useCollapsible({ initialState: !initiallyOpen });
  return { collapsed, setCollapsed, toggleCollapsed, panelId: useId() };
}

export type Disclosure = ReturnType<typeof useDisclosure>;

interface PartProps {
  disclosure: Disclosure;
  className?: string | undefined;
  children: ReactNode;
}

/** The toggle: a chevron that turns when the panel is open, then `children` as its label. */
export function DisclosureButton({ disclosure, className, children }: PartProps): ReactNode {
  const { collapsed, toggleCollapsed, panelId } = disclosure;
  return (
    <button
      type="button"
      className={className}
      aria-expanded={!collapsed}
      aria-controls={panelId}
      onClick={toggleCollapsed}
    >
      <span className={clsx(styles.chevron, !collapsed && styles.open)} aria-hidden="true" />
      {children}
    </button>
  );
}

/** The panel the button controls; its content renders on first open. */
export function DisclosurePanel({ disclosure, className, children }: PartProps): ReactNode {
  return (
    <div id={disclosure.panelId}>
      <Collapsible lazy collapsed={disclosure.collapsed} className={className}>
        {children}
      </Collapsible>
    </div>
  );
}
