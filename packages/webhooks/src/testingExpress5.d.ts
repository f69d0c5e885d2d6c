// `express5` is an npm alias of express@5 used to run the Express tests on both majors; it ships no types of
// its own, and the tests use only API that Express 4 and 5 share.
declare module 'express5' {
  import express from 'express';
  export default express;
}
