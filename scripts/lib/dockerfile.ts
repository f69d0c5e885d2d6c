// Reads a Dockerfile into its stages and instructions, enough for tests to hold it to what they run: the build
// steps, the user, the environment, the command and the health check.

export interface DockerInstruction {
  keyword: string;
  args: string;
}

export interface DockerStage {
  name: string;
  /** The base image, with the ARGs declared before the first FROM substituted. */
  from: string;
  instructions: DockerInstruction[];
  /** The arguments of the stage's last `keyword` instruction. */
  get(keyword: string): string | undefined;
  /** The JSON (exec) form of `CMD`, `ENTRYPOINT`, or of `HEALTHCHECK CMD`. */
  json(keyword: 'CMD' | 'ENTRYPOINT' | 'HEALTHCHECK CMD'): unknown;
  /** The stage's ENV variables (KEY=VALUE form). */
  env(): Record<string, string>;
}

export function readDockerfile(text: string): DockerStage[] {
  const lines = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const args: Record<string, string> = {};
  const stages: DockerStage[] = [];
  for (const line of lines) {
    const [keyword = '', ...rest] = line.split(/\s+/);
    const instruction = { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    if (instruction.keyword === 'ARG' && stages.length === 0) {
      const [name = '', value = ''] = instruction.args.split(/=(.*)/);
      args[name] = value;
    } else if (instruction.keyword === 'FROM') {
      const [image = '', , name = ''] = rest;
      stages.push(
        stage(
          name,
          image.replace(/\$\{(\w+)\}/g, (_, arg: string) => args[arg] ?? ''),
          [],
        ),
      );
    } else {
      const current = stages.at(-1);
      if (!current) throw new Error(`${instruction.keyword} before FROM`);
      current.instructions.push(instruction);
    }
  }
  return stages;
}

function stage(name: string, from: string, instructions: DockerInstruction[]): DockerStage {
  const get = (keyword: string) => instructions.findLast((i) => i.keyword === keyword)?.args;
  return {
    name,
    from,
    instructions,
    get,
    json(keyword) {
      const [first, second] = keyword.split(' ');
      const value = get(first as string) ?? '';
      return JSON.parse(second ? value.slice(value.indexOf(`${second} `) + second.length + 1) : value);
    },
    env() {
      const entries = instructions
        .filter((i) => i.keyword === 'ENV')
        .flatMap((i) => i.args.split(/\s+/))
        .map((pair) => pair.split(/=(.*)/).slice(0, 2) as [string, string]);
      return Object.fromEntries(entries);
    },
  };
}
