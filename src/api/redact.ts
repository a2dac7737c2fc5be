// The key must never come back out, whatever form the service echoes it in: raw, JSON-escaped,
// URL-encoded, or base64 / base64url (of the key, and of the whole Authorization value), whole or
// inside a longer encoded blob.

const MIN_FORM_CHARS = 6;

/** The base64 text that encodes `bytes` wherever they sit in a longer encoded string. */
function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [bytes.toString('base64'), bytes.toString('base64').replace(/=+$/, '')];
  for (let offset = 0; offset < 3; offset++) {
    // With `offset` bytes before it, the first characters also carry those bytes' bits, and the
    // last group the bytes after it: keep only the characters that depend on the secret alone.
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const skip = [0, 2, 3][offset];
    const whole = Math.floor((offset + bytes.length) / 3) * 4;
    cores.push(encoded.slice(skip, whole));
  }
  return cores;
}

/** Every form of each secret worth looking for, longest first. */
export function secretForms(secrets: string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (!secret) continue;
    forms.add(secret);
    forms.add(JSON.stringify(secret).slice(1, -1));
    forms.add(encodeURIComponent(secret));
    forms.add(encodeURIComponent(secret).replace(/%20/g, '+'));
    for (const core of base64Cores(Buffer.from(secret, 'utf8'))) {
      forms.add(core);
      forms.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  return [...forms].filter((f) => f.length >= MIN_FORM_CHARS).sort((a, b) => b.length - a.length);
}

/** A function that replaces every form of the secrets with `***`. */
export function redactor(secrets: string[]): (text: string) => string {
  const forms = secretForms(secrets);
  return (text) => {
    let out = text;
    for (const form of forms) if (out.includes(form)) out = out.split(form).join('***');
    return out;
  };
}
