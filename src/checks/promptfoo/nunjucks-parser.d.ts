// Nunjucks' parser module alone (untyped in @types/nunjucks): the one part of Nunjucks the template
// evaluator uses. Importing it, not the package, leaves the compiler and runtime out of the bundle.
declare module 'nunjucks/src/parser.js' {
  const parser: { parse(src: string, extensions: unknown[], opts: object): unknown };
  export default parser;
}
