import { spawnSync } from 'node:child_process';
import { deadPredecessors } from './member-handover';

describe('deadPredecessors', () => {
  it('keeps members whose process runs, and takes those that are gone or had this pid', () => {
    // A pid that was used and is free now: a child that has exited.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const records = [
      { member_id: 'live-parent', pid: process.ppid },
      { member_id: 'gone', pid: gone },
      { member_id: 'restarted-here', pid: process.pid },
    ];
    expect(deadPredecessors(records, process.pid).map((r) => r.member_id)).toEqual(['gone', 'restarted-here']);
  });

  it('never takes a member of another process that runs, even one that runs as another user', () => {
    const records = [{ member_id: 'other-user', pid: 1 }];
    // pid 1 always runs; as another user `kill(1, 0)` fails with EPERM, which still means running.
    expect(deadPredecessors(records, process.pid + 1)).toEqual([]);
  });
});
