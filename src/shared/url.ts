// The one rule for an address the action sends a key to (the service's `base-url`, a judge's
// `url`): https, or plain http only to a loopback host; no credentials, query or fragment in it.

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

export const SECURE_URL_EXPECTED =
  'an https URL such as https://api.example.com/v1 (http only for localhost, 127.0.0.0/8 or [::1])';

/** The URL without a trailing slash, or what is wrong with it (to follow "expected"). */
export function readSecureUrl(value: string): { url: URL } | { expected: string } {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return { expected: SECURE_URL_EXPECTED };
  }
  const loopback = LOOPBACK_HOST.test(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) return { expected: SECURE_URL_EXPECTED };
  if (url.username || url.password) return { expected: `${SECURE_URL_EXPECTED}, without user or password` };
  if (url.search || url.hash) return { expected: `${SECURE_URL_EXPECTED}, without a query or fragment` };
  return { url };
}

/**
 * The address as it may be shown: any user and password before the host replaced by `***`, so a
 * message about a URL never echoes its credentials (parsed or not).
 */
export function withoutUserinfo(text: string): string {
  return text.replace(
    /^(\s*(?:[a-z][a-z\d+.-]*:)?\/\/)?[^/?#\s\\]*@/i,
    (_match, scheme: string | undefined) => `${scheme ?? ''}***@`,
  );
}
