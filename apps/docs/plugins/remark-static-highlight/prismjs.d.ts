// The parts of prismjs (no bundled types) that the build-time highlighter uses.
declare module 'prismjs' {
  interface Grammar {
    [token: string]: unknown;
  }
  const Prism: {
    languages: Record<string, Grammar | undefined>;
    highlight(text: string, grammar: Grammar, language: string): string;
  };
  export default Prism;
}

declare module 'prismjs/components/index.js' {
  export default function loadLanguages(languages: string[]): void;
}
