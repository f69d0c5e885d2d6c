import Prism from 'prismjs';
import loadLanguages from 'prismjs/components/index.js';

// Languages the docs use; anything else is shown as plain, escaped text.
const LANGUAGES = ['bash', 'typescript', 'javascript', 'json', 'sql', 'tsx', 'yaml'];
const ALIASES: Record<string, string> = { ts: 'typescript', js: 'javascript', sh: 'bash', shell: 'bash' };
loadLanguages(LANGUAGES);

interface MdastNode {
  type: string;
  lang?: string | null;
  value?: string;
  children?: MdastNode[];
  [key: string]: unknown;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Highlighted HTML of a code sample: Prism's `<span class="token …">` markup, escaped. */
export function highlight(code: string, lang: string): string {
  const language = ALIASES[lang] ?? lang;
  const grammar = Prism.languages[language];
  return grammar ? Prism.highlight(code, grammar, language) : escapeHtml(code);
}

function attribute(name: string, value: string) {
  return { type: 'mdxJsxAttribute', name, value };
}

/**
 * Highlights fenced code blocks while the site is built and replaces each with a `<CodeSample>` element that
 * carries the finished HTML. The browser then never loads or runs a highlighter: Prism's start-up alone was the
 * largest piece of script work on every page (see apps/docs/README.md).
 */
export default function remarkStaticHighlight() {
  return (tree: MdastNode) => {
    const visit = (node: MdastNode) => {
      node.children?.forEach((child, index) => {
        if (child.type === 'code' && node.children) {
          const lang = (child.lang ?? 'text').toLowerCase();
          const code = child.value ?? '';
          node.children[index] = {
            type: 'mdxJsxFlowElement',
            name: 'CodeSample',
            attributes: [
              attribute('language', lang),
              attribute('code', code),
              attribute('html', highlight(code, lang)),
            ],
            children: [],
            position: child.position,
          };
        } else {
          visit(child);
        }
      });
    };
    visit(tree);
  };
}
