// The dashboard package: see README.md.
export {};
