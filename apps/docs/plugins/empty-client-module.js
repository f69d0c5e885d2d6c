// Stands in for a client module that is not needed in the browser (see prism-off-client.ts).
export default undefined;
