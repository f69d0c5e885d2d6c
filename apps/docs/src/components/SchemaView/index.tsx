import clsx from 'clsx';
import type { ReactNode } from 'react';
import {
  childSchema,
  constraints,
  normalize,
  type OpenApiDocument,
  type SchemaObject,
  typeLabel,
} from '../ApiReference/openapi';
import { DisclosureButton, DisclosurePanel, useDisclosure } from '../Disclosure';
import InlineMarkdown from '../InlineMarkdown';
import styles from './styles.module.css';

const MAX_DEPTH = 8;

interface Props {
  doc: OpenApiDocument;
  schema: SchemaObject;
  depth?: number;
}

/**
 * A schema as a list of fields. Nested objects collapse behind a toggle; a schema with exactly one field shows
 * that field expanded (the viewer's single-schema-field expansion), so envelopes such as `{transaction}` open
 * straight onto the entity.
 */
export default function SchemaView({ doc, schema, depth = 0 }: Props): ReactNode {
  const normalized = normalize(doc, schema);
  const target = childSchema(doc, schema);
  if (!target) {
    return (
      <p className={styles.scalar}>
        <span className={styles.type}>{typeLabel(doc, schema)}</span>
        <Constraints schema={normalized} />
      </p>
    );
  }
  return (
    <>
      {normalized.type === 'array' && <p className={styles.scalar}>{typeLabel(doc, schema)}</p>}
      <PropertyList doc={doc} schema={normalize(doc, target)} depth={depth} />
    </>
  );
}

function PropertyList({ doc, schema, depth }: { doc: OpenApiDocument; schema: SchemaObject; depth: number }) {
  const entries = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  const single = entries.length === 1;
  return (
    <ul className={clsx(styles.properties, depth > 0 && styles.nested)}>
      {entries.map(([name, property]) => (
        <Property
          key={name}
          doc={doc}
          name={name}
          schema={property}
          required={required.has(name)}
          expanded={single}
          depth={depth}
        />
      ))}
    </ul>
  );
}

interface PropertyProps {
  doc: OpenApiDocument;
  name: string;
  schema: SchemaObject;
  required: boolean;
  expanded: boolean;
  depth: number;
}

function Property({ doc, name, schema, required, expanded, depth }: PropertyProps) {
  const normalized = normalize(doc, schema);
  const nested = depth < MAX_DEPTH ? childSchema(doc, schema) : undefined;
  const disclosure = useDisclosure(expanded);
  const label = (
    <>
      <code className={styles.name}>{name}</code>
      {required && <span className={styles.required}>required</span>}
    </>
  );
  return (
    <li className={styles.property}>
      <div className={styles.head}>
        {nested ? (
          <DisclosureButton disclosure={disclosure} className={styles.toggle}>
            {label}
          </DisclosureButton>
        ) : (
          label
        )}
        <span className={styles.type}>{typeLabel(doc, schema)}</span>
        {normalized.deprecated && <span className={styles.deprecated}>deprecated</span>}
        {normalized.readOnly && <span className={styles.meta}>read-only</span>}
      </div>
      <div className={styles.body}>
        <Constraints schema={normalized} />
        <InlineMarkdown text={normalized.description} className={styles.description} />
      </div>
      {nested && (
        <DisclosurePanel disclosure={disclosure} className={styles.panel}>
          <PropertyList doc={doc} schema={normalize(doc, nested)} depth={depth + 1} />
        </DisclosurePanel>
      )}
    </li>
  );
}

function Constraints({ schema }: { schema: SchemaObject }) {
  const rules = constraints(schema);
  const values = schema.enum ?? (schema.type === 'array' ? schema.items?.enum : undefined);
  if (rules.length === 0 && !values && schema.default === undefined && schema.example === undefined) return null;
  return (
    <span className={styles.rules}>
      {rules.map((rule) => (
        <span key={rule} className={styles.rule}>
          {rule}
        </span>
      ))}
      {values && (
        <span className={styles.enum}>
          {'one of: '}
          {values.map((value) => (
            <code key={String(value)}>{JSON.stringify(value)}</code>
          ))}
        </span>
      )}
      {schema.default !== undefined && (
        <span className={styles.meta}>
          default: <code>{JSON.stringify(schema.default)}</code>
        </span>
      )}
      {schema.example !== undefined && (
        <span className={styles.meta}>
          example: <code>{JSON.stringify(schema.example)}</code>
        </span>
      )}
    </span>
  );
}
