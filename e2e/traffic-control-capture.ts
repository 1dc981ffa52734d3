import { run } from '@antrea-ts/harness';

/**
 * The first `count` packets matching `filter` that tcpdump sees on `iface` in `netns` (the root namespace when undefined; one line
 * each), while `traffic` is repeated until it has them: tcpdump takes a moment to start listening,
 * seconds on a loaded machine. Empty when nothing matched within 30 s.
 */
export async function captureOn(
  netns: string | undefined,
  iface: string,
  filter: string,
  count: number,
  traffic: () => Promise<unknown>,
): Promise<string> {
  let done = false;
  const capture = run(
    [
      'sh',
      '-c',
      `timeout 30 tcpdump -n -l -c ${count} -i "$1" "$2" 2>/dev/null; true`,
      'capture',
      iface,
      filter,
    ],
    { netns, timeoutMs: 40_000 },
  ).finally(() => {
    done = true;
  });
  while (!done) await traffic().catch(() => undefined);
  return capture;
}
