// The version the command line reports (`--version`); a test holds it equal to package.json's.
export const VERSION = '0.1.0';
