import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startPlatform, suiteFixture } from '@agentplatform/testing';

const ROOT = path.resolve(__dirname, '../../..');
const PACKAGE = path.join(ROOT, 'packages/sdk-python');
const VENV = path.join(ROOT, '.cache', 'sdk-python-test-venv');

/** A virtual environment with the SDK installed as a user would (`pip install ./packages/sdk-python`), and pytest. */
function sdkPython(): string {
  if (!fs.existsSync(path.join(VENV, 'bin', 'python'))) {
    const venv = spawnSync('python3', ['-m', 'venv', VENV], { encoding: 'utf8' });
    if (venv.status !== 0) throw new Error(`python3 -m venv failed: ${venv.stderr}`);
  }
  // Reinstalled every run: the package is this checkout's, and pip is quick when nothing changed.
  const pip = spawnSync(
    path.join(VENV, 'bin', 'pip'),
    ['install', '--quiet', '--disable-pip-version-check', '--force-reinstall', '--no-deps', PACKAGE],
    { encoding: 'utf8' },
  );
  if (pip.status !== 0) throw new Error(`pip install ./packages/sdk-python failed: ${pip.stderr}`);
  const deps = spawnSync(
    path.join(VENV, 'bin', 'pip'),
    ['install', '--quiet', '--disable-pip-version-check', `${PACKAGE}[test]`],
    { encoding: 'utf8' },
  );
  if (deps.status !== 0) throw new Error(`pip install ./packages/sdk-python[test] failed: ${deps.stderr}`);
  return path.join(VENV, 'bin', 'python');
}

/**
 * The Python SDK (packages/sdk-python) against the real platform: its pytest suite, run in a
 * virtual environment in an ignored folder, with the gateway's address.
 */
describe('the Python SDK', () => {
  const platform = suiteFixture(() => startPlatform());

  it('passes its pytest suite against the platform', async () => {
    const python = sdkPython();
    const output: string[] = [];
    const status = await new Promise<number>((resolve, reject) => {
      const child = spawn(python, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', path.join(PACKAGE, 'tests')], {
        env: { ...process.env, AGENTPLATFORM_URL: platform.url },
      });
      child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve(code ?? 1));
    });
    const text = output.join('');
    // pytest's summary, as a plain line (a CI that reads runners' closing lines sees jest's).
    process.stdout.write(`[pytest] ${text.trim().split('\n').at(-1)}\n`);
    // On a failure, pytest's whole report is the difference shown.
    expect(status === 0 && /\d+ passed/.test(text) ? 'passed' : text).toBe('passed');
  }, 300_000);
});
