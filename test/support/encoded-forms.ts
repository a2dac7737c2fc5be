// The encoded forms of a secret that the redactor must remove, shared by the redactor's unit tests
// and the end-to-end tests of the sinks. A module of its own, not a test file: a file that imports
// a test file runs that file's tests again as its own.

/** Every form the issue names, of the key and of the whole Authorization value. */
export function encodedForms(secret: string): string[] {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const b64url = (s: string) => Buffer.from(s).toString('base64url');
  return [
    secret,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    b64(secret),
    b64url(secret),
    // inside a longer encoded blob, at every alignment
    b64(`a${secret}z`),
    b64(`ab${secret}zz`),
    b64url(`abc${secret}`),
  ];
}
