import Heading from '@theme/Heading';
import { type ReactNode, useEffect } from 'react';
import { normalize, type OpenApiDocument, type SchemaObject } from '../ApiReference/openapi';
import { DisclosureButton, DisclosurePanel, useDisclosure } from '../Disclosure';
import InlineMarkdown from '../InlineMarkdown';
import SchemaView from '../SchemaView';
import styles from './styles.module.css';

interface Props {
  doc: OpenApiDocument;
  name: string;
  schema: SchemaObject;
}

/**
 * One entry of the reference's "Schemas" section: the name as a linkable heading, its fields behind a toggle
 * (opened at once when the address points at it), so the long page stays light.
 */
export default function SchemaSection({ doc, name, schema }: Props): ReactNode {
  const id = `schema-${name}`;
  const disclosure = useDisclosure();
  const { collapsed, setCollapsed } = disclosure;
  useEffect(() => {
    const openWhenTargeted = () => {
      if (window.location.hash === `#${id}`) setCollapsed(false);
    };
    openWhenTargeted();
    window.addEventListener('hashchange', openWhenTargeted);
    return () => window.removeEventListener('hashchange', openWhenTargeted);
  }, [id, setCollapsed]);
  const fields = Object.keys(normalize(doc, schema).properties ?? {}).length;
  return (
    <div className={styles.schema}>
      <Heading as="h3" id={id}>
        {name}
      </Heading>
      <InlineMarkdown text={schema.description} />
      <DisclosureButton disclosure={disclosure} className={styles.toggle}>
        {fields > 0 ? `${collapsed ? 'Show' : 'Hide'} ${fields} field${fields === 1 ? '' : 's'}` : 'Show schema'}
      </DisclosureButton>
      <DisclosurePanel disclosure={disclosure}>
        <div className={styles.body}>
          <SchemaView doc={doc} schema={{ $ref: `#/components/schemas/${name}` }} />
        </div>
      </DisclosurePanel>
    </div>
  );
}
