import Heading from '@theme/Heading';
import clsx from 'clsx';
import type { ReactNode } from 'react';
import methodColors from '../ApiReference/methodColors.module.css';
import {
  deref,
  examplesOf,
  jsonText,
  type OpenApiDocument,
  type Operation,
  type ResponseObject,
  reasonPhrase,
} from '../ApiReference/openapi';
import { curlSample } from '../ApiReference/samples';
import CopyableCode from '../CopyableCode';
import { DisclosureButton, DisclosurePanel, useDisclosure } from '../Disclosure';
import InlineMarkdown from '../InlineMarkdown';
import SchemaView from '../SchemaView';
import styles from './styles.module.css';

interface Props {
  doc: OpenApiDocument;
  operation: Operation;
}

/** One operation: endpoint, roles, credentials, parameters, request body, a request sample and every response. */
export default function ApiOperation({ doc, operation }: Props): ReactNode {
  const { operation: op, method, path, id } = operation;
  const roles = op['x-required-roles'] ?? [];
  const body = op.requestBody ? deref(doc, op.requestBody) : undefined;
  const bodyMedia = body?.content?.['application/json'];
  const responses = Object.entries(op.responses ?? {});
  const successes = responses.filter(([status]) => /^[123]/.test(status));
  const errors = responses.filter(([status]) => !/^[123]/.test(status));
  return (
    <section className={styles.operation} data-operation={id}>
      <Heading as="h3" id={id} className={styles.title}>
        {op.summary ?? id}
      </Heading>
      <p className={styles.endpoint}>
        <span className={clsx(styles.method, methodColors[method])}>{method.toUpperCase()}</span>
        <code className={styles.path}>{path}</code>
      </p>
      <dl className={styles.facts}>
        <dt>Operation id</dt>
        <dd>
          <code>{id}</code>
        </dd>
        <dt>Roles</dt>
        <dd>
          {roles.length === 0
            ? 'any role'
            : roles.map((role) => (
                <span key={role} className={styles.role}>
                  {role}
                </span>
              ))}
        </dd>
        <dt>Credentials</dt>
        <dd>{credentials(doc, operation)}</dd>
      </dl>
      <InlineMarkdown text={op.description} className={styles.description} />
      {operation.parameters.length > 0 && (
        <>
          <h4 className={styles.subhead}>Parameters</h4>
          <ul className={styles.params}>
            {operation.parameters.map((parameter) => (
              <li key={`${parameter.in}:${parameter.name}`}>
                <code className={styles.paramName}>{parameter.name}</code>
                <span className={styles.muted}>in {parameter.in}</span>
                {parameter.required && <span className={styles.required}>required</span>}
                <InlineMarkdown text={parameter.description} className={styles.paramDescription} />
                {parameter.schema && <SchemaView doc={doc} schema={parameter.schema} depth={1} />}
              </li>
            ))}
          </ul>
        </>
      )}
      {bodyMedia?.schema && (
        <>
          <h4 className={styles.subhead}>
            Request body <span className={styles.muted}>application/json</span>
          </h4>
          <InlineMarkdown text={body?.description} />
          <SchemaView doc={doc} schema={bodyMedia.schema} />
        </>
      )}
      <h4 className={styles.subhead}>Request sample</h4>
      <CopyableCode code={curlSample(doc, operation)} language="bash" label={`request sample of ${id}`} />
      <h4 className={styles.subhead}>Responses</h4>
      <ul className={styles.responses}>
        {successes.map(([status, response]) => (
          <ResponseItem key={status} doc={doc} operationId={id} status={status} response={deref(doc, response)} />
        ))}
      </ul>
      {errors.length > 0 && <ErrorResponses doc={doc} operationId={id} responses={errors} />}
    </section>
  );
}

function credentials(doc: OpenApiDocument, operation: Operation): string {
  const requirements = operation.operation.security ?? doc.security ?? [];
  if (requirements.length === 0) return 'none';
  const names = requirements.flatMap((requirement) => Object.keys(requirement));
  return names
    .map((name) => {
      const scheme = doc.components?.securitySchemes?.[name];
      if (scheme?.type === 'apiKey') return `API key (${scheme.name} header)`;
      if (scheme?.type === 'http' && scheme.scheme === 'bearer') return 'access token (Authorization: Bearer)';
      return name;
    })
    .join(' or ');
}

/** Error answers sit behind one toggle that names their statuses; each opens on its own. */
function ErrorResponses({
  doc,
  operationId,
  responses,
}: {
  doc: OpenApiDocument;
  operationId: string;
  responses: [string, ResponseObject][];
}) {
  const disclosure = useDisclosure();
  return (
    <div className={styles.errors}>
      <DisclosureButton disclosure={disclosure} className={styles.responseToggle}>
        <span>Error responses</span>
        <span className={clsx(styles.status, styles.clientError)}>
          {responses.map(([status]) => status).join(' · ')}
        </span>
      </DisclosureButton>
      <DisclosurePanel disclosure={disclosure}>
        <ul className={clsx(styles.responses, styles.errorList)}>
          {responses.map(([status, response]) => (
            <ResponseItem
              key={status}
              doc={doc}
              operationId={operationId}
              status={status}
              response={deref(doc, response)}
            />
          ))}
        </ul>
      </DisclosurePanel>
    </div>
  );
}

interface ResponseProps {
  doc: OpenApiDocument;
  operationId: string;
  status: string;
  response: ResponseObject;
}

/** One response, closed until opened (like the viewer's default); its fields and examples render on first open. */
function ResponseItem({ doc, operationId, status, response }: ResponseProps) {
  const disclosure = useDisclosure();
  const media = response.content?.['application/json'];
  const examples = disclosure.collapsed ? [] : examplesOf(doc, media);
  const kind = status.startsWith('2') ? styles.ok : status.startsWith('5') ? styles.serverError : styles.clientError;
  return (
    <li className={styles.response}>
      <DisclosureButton disclosure={disclosure} className={styles.responseToggle}>
        <span className={clsx(styles.status, kind)}>{status}</span>
        <span>{reasonPhrase(status)}</span>
      </DisclosureButton>
      <DisclosurePanel disclosure={disclosure}>
        <div className={styles.responseBody}>
          <InlineMarkdown text={response.description} className={styles.description} />
          {media?.schema ? <SchemaView doc={doc} schema={media.schema} /> : <p>No body.</p>}
          {examples.map(({ label, value }) => (
            <div key={label}>
              {label && <p className={styles.exampleLabel}>Example: {label}</p>}
              <CopyableCode code={jsonText(value)} label={`${status} ${label} response example of ${operationId}`} />
            </div>
          ))}
        </div>
      </DisclosurePanel>
    </li>
  );
}
