// The docs pages' token, deployed by the samples' test on its own fresh anvil: the same contract and deployment as
// npm start's demo token (@mountain/testkit/docsToken.ts).
export { DOCS_TOKEN_ADDRESS, deployDocsToken } from '@mountain/testkit/docsToken.ts';
