import Link from '@docusaurus/Link';
import { useAnchorTargetClassName } from '@docusaurus/theme-common';
import useBrokenLinks from '@docusaurus/useBrokenLinks';
import type { Props } from '@theme/Heading';
import clsx from 'clsx';
import { Children, isValidElement, type ReactNode } from 'react';
import './styles.module.css';

/** The visible text of a heading, also when it holds inline code or emphasis. */
function textOf(node: ReactNode): string {
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (isValidElement<{ children?: ReactNode }>(node)) return textOf(node.props.children);
  return Children.toArray(node).map(textOf).join('');
}

/**
 * The theme's heading with one change: the direct-link anchor is always labelled "Direct link to {heading}"
 * with the heading's text (SPEC §2), where the original falls back to the id when the heading has markup in it.
 */
export default function Heading({ as: As, id, ...props }: Props): ReactNode {
  const brokenLinks = useBrokenLinks();
  const anchorTargetClassName = useAnchorTargetClassName(id);
  if (As === 'h1' || !id) {
    return <As {...props} id={undefined} />;
  }
  brokenLinks.collectAnchor(id);
  const anchorTitle = `Direct link to ${textOf(props.children).trim() || id}`;
  return (
    <As {...props} className={clsx('anchor', anchorTargetClassName, props.className)} id={id}>
      {props.children}
      <Link className="hash-link" to={`#${id}`} aria-label={anchorTitle} title={anchorTitle} translate="no">
        &#8203;
      </Link>
    </As>
  );
}
