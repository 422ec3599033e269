/** A value codeloop cannot use: one line naming each variable, what it must be and what it was, for an entry point to print. */
export class ConfigError extends Error {}
