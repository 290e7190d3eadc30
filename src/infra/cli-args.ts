// Command-line options for the project's CLIs: `--help` prints the usage, and an unknown or malformed option gets a
// one-line message with the usage and exit code 2 instead of a stack trace.
import { type ParseArgsConfig, parseArgs } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
type Values<O extends Options> = ReturnType<typeof parseArgs<{ options: O }>>['values'];

export function cliArgs<O extends Options>(options: O, usage: string, argv: string[] = process.argv.slice(2)): Values<O> {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', default: false } }, strict: true }));
  } catch (err) {
    console.error(`${(err as Error).message.split('\n')[0]}\n${usage}`);
    process.exit(2);
  }
  if (values.help === true) {
    console.log(usage);
    process.exit(0);
  }
  return values as Values<O>;
}
