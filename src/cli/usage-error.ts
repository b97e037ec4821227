/** A command-line mistake: printed with the usage line of the command it concerns, exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The usage line(s) to print with it; default: those of the command being run. */
    readonly usage?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}
