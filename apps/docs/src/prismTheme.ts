import type { PrismTheme } from 'prism-react-renderer';

// Code colours for the dark site. Every token colour keeps at least 4.5:1 contrast against the code background
// (WCAG AA), which the stock dark Prism themes do not for comments and JSON keys.
const prismTheme: PrismTheme = {
  plain: { color: '#e6edf3', backgroundColor: '#10171b' },
  styles: [
    { types: ['comment', 'prolog', 'doctype', 'cdata'], style: { color: '#9aa8b3', fontStyle: 'italic' } },
    { types: ['punctuation', 'operator'], style: { color: '#c9d1d9' } },
    { types: ['property', 'tag', 'attr-name', 'key'], style: { color: '#7ee7d6' } },
    { types: ['string', 'char', 'attr-value', 'template-string', 'url'], style: { color: '#a5d6ff' } },
    { types: ['number', 'boolean', 'constant', 'symbol'], style: { color: '#ffb86b' } },
    { types: ['keyword', 'selector', 'atrule', 'important'], style: { color: '#ff9cc4' } },
    { types: ['function', 'class-name', 'builtin'], style: { color: '#d2a8ff' } },
    { types: ['variable', 'parameter', 'regex'], style: { color: '#ffd479' } },
    { types: ['inserted'], style: { color: '#7ee787' } },
    { types: ['deleted'], style: { color: '#ffa198' } },
  ],
};

export default prismTheme;
