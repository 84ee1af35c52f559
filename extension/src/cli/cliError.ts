// The CLI's one failure type: what went wrong, for the user, and the exit code.
// Its own file so that helpers the context uses (tokenFile.ts) can throw it
// without importing the context back.

/** A failure with a message for the user and an exit code (see args.exitCodes). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}
