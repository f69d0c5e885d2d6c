import Link from '@docusaurus/Link';
import Heading from '@theme/Heading';
import Layout from '@theme/Layout';
import clsx from 'clsx';
import { type ReactNode, useEffect, useMemo, useState } from 'react';
import ApiOperation from '../ApiOperation';
import ApiSidebar from '../ApiSidebar';
import InlineMarkdown from '../InlineMarkdown';
import SchemaSection from '../SchemaSection';
import { groupOperations, type OpenApiDocument } from './openapi';
import styles from './styles.module.css';

const MENU_ID = 'api-reference-menu';

/** Which operation is in view: the first one crossing the band just below the navbar. */
function useActiveOperation(ids: string[]): string | undefined {
  const [active, setActive] = useState<string>();
  useEffect(() => {
    const visible = new Set<string>();
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          const id = (entry.target as HTMLElement).dataset.operation ?? '';
          if (entry.isIntersecting) visible.add(id);
          else visible.delete(id);
        }
        const first = ids.find((id) => visible.has(id));
        if (first) setActive(first);
      },
      { rootMargin: '-80px 0px -60% 0px' },
    );
    for (const element of document.querySelectorAll<HTMLElement>('[data-operation]')) observer.observe(element);
    return () => observer.disconnect();
  }, [ids]);
  return active;
}

/** The interactive API reference, rendered from the OpenAPI file at build time (see plugins/openapi-reference). */
export default function ApiReference({ spec }: { spec: OpenApiDocument }): ReactNode {
  const groups = useMemo(() => groupOperations(spec), [spec]);
  const ids = useMemo(() => groups.flatMap((group) => group.operations.map((operation) => operation.id)), [groups]);
  const activeId = useActiveOperation(ids);
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => {
    // The narrow-screen menu closes once a link in it was followed, or on Escape.
    if (!menuOpen) return undefined;
    const close = () => setMenuOpen(false);
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && close();
    window.addEventListener('hashchange', close);
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('hashchange', close);
      window.removeEventListener('keydown', onKey);
    };
  }, [menuOpen]);
  const schemes = Object.entries(spec.components?.securitySchemes ?? {});
  const schemas = Object.entries(spec.components?.schemas ?? {});

  return (
    <Layout
      title="API Reference"
      description={`${spec.info.title} ${spec.info.version}: every operation of the Mountain Public API with its roles, parameters, schemas and examples.`}
    >
      <div className={styles.page}>
        <button
          type="button"
          className={styles.menuToggle}
          aria-expanded={menuOpen}
          aria-controls={MENU_ID}
          onClick={() => setMenuOpen((open) => !open)}
        >
          <span className={styles.menuIcon} aria-hidden="true" />
          Operations
        </button>
        <aside id={MENU_ID} className={clsx(styles.sidebar, menuOpen && styles.sidebarOpen)}>
          <ApiSidebar groups={groups} activeId={activeId} />
        </aside>
        <main className={styles.content}>
          <header className={styles.intro}>
            <h1 className={styles.heading}>
              {spec.info.title} <span className={styles.version}>{spec.info.version}</span>
            </h1>
            <InlineMarkdown text={spec.info.description} />
            {spec.servers?.map((server) => (
              <p key={server.url} className={styles.server}>
                <span>{server.description ?? 'Base URL'}</span> <code>{server.url}</code>
              </p>
            ))}
            <p>
              New here? Start with <Link to="/docs/getting-started/first-api-call">your first API call</Link>; every
              error code is listed in the <Link to="/docs/api-operations#error-catalogue">error catalogue</Link>.
            </p>
          </header>

          <section className={styles.group}>
            <Heading as="h2" id="authentication">
              Authentication
            </Heading>
            <dl className={styles.schemes}>
              {schemes.map(([name, scheme]) => (
                <div key={name}>
                  <dt>
                    <code>{name}</code>{' '}
                    {scheme.type === 'apiKey'
                      ? `${scheme.name} header`
                      : `Authorization: ${scheme.scheme ?? scheme.type}`}
                  </dt>
                  <dd>
                    <InlineMarkdown text={scheme.description} />
                  </dd>
                </div>
              ))}
            </dl>
            <p>
              Roles, key format and project selection are explained in{' '}
              <Link to="/docs/authentication">Authentication</Link>.
            </p>
          </section>

          {groups.map((group) => (
            <section key={group.id} className={styles.group}>
              <Heading as="h2" id={group.id}>
                {group.name}
              </Heading>
              <InlineMarkdown text={group.description} />
              {group.operations.map((operation) => (
                <ApiOperation key={operation.id} doc={spec} operation={operation} />
              ))}
            </section>
          ))}

          <section className={styles.group}>
            <Heading as="h2" id="schemas">
              Schemas
            </Heading>
            {schemas.map(([name, schema]) => (
              <SchemaSection key={name} doc={spec} name={name} schema={schema} />
            ))}
          </section>
        </main>
      </div>
    </Layout>
  );
}
