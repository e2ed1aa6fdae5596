/** swagger-ui-dist ships no type declarations; this is the one function the docs page uses. */
declare module 'swagger-ui-dist' {
  export function getAbsoluteFSPath(): string;
}
