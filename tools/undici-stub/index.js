// The toolkit (@actions/http-client, @actions/github) imports undici's ProxyAgent and fetch at
// load time for callers that use fetch through a proxy. This project makes every GitHub call
// through its own fetch over @actions/http-client (src/api/http.ts), which honours the
// runner's proxy settings, so undici's 430 KiB never run: this stand-in keeps them out of dist/.
// A ProxyAgent may be made (the toolkit makes one at load when a proxy is set) but never used.
const unused = (what) => () => {
  throw new Error(`${what} is not bundled: GitHub calls go through src/api/http.ts`);
};

export class ProxyAgent {
  constructor(options) {
    this.options = options;
  }
  dispatch = unused('undici.ProxyAgent');
}

export const fetch = unused('undici.fetch');
