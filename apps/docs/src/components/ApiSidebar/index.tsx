import clsx from 'clsx';
import type { ReactNode } from 'react';
import methodColors from '../ApiReference/methodColors.module.css';
import type { TagGroup } from '../ApiReference/openapi';
import styles from './styles.module.css';

interface Props {
  groups: TagGroup[];
  activeId: string | undefined;
}

/** The reference's left navigation: tags, then their operations; the operation in view is highlighted. */
export default function ApiSidebar({ groups, activeId }: Props): ReactNode {
  return (
    <nav aria-label="API operations" className={styles.nav}>
      <ul className={styles.list}>
        <li>
          <a className={styles.top} href="#authentication">
            Authentication
          </a>
        </li>
        {groups.map((group) => (
          <li key={group.id}>
            <a className={styles.tag} href={`#${group.id}`}>
              {group.name}
            </a>
            <ul className={styles.list}>
              {group.operations.map((operation) => {
                const active = operation.id === activeId;
                return (
                  <li key={operation.id}>
                    <a
                      href={`#${operation.id}`}
                      className={clsx(styles.link, active && styles.active)}
                      aria-current={active ? 'location' : undefined}
                    >
                      <span className={clsx(styles.method, methodColors[operation.method])}>
                        {operation.method === 'delete' ? 'DEL' : operation.method.toUpperCase()}
                      </span>
                      <span className={styles.label}>{operation.operation.summary ?? operation.id}</span>
                    </a>
                  </li>
                );
              })}
            </ul>
          </li>
        ))}
        <li>
          <a className={styles.top} href="#schemas">
            Schemas
          </a>
        </li>
      </ul>
    </nav>
  );
}
