import { hostname } from 'node:os';
import { Schema, type Connection, type Model } from 'mongoose';
import type { Consumer, Kafka } from 'kafkajs';
import type { Logger } from '@agentplatform/service-kit';

/** A consumer group member as its process recorded it when it joined. */
interface GroupMemberDocument {
  /** `${group}|${member id}` */
  _id: string;
  group: string;
  member_id: string;
  host: string;
  pid: number;
  joined_at: Date;
}

const memberSchema = new Schema<GroupMemberDocument>(
  {
    _id: { type: String, required: true },
    group: { type: String, required: true },
    member_id: { type: String, required: true },
    host: { type: String, required: true },
    pid: { type: Number, required: true },
    joined_at: { type: Date, required: true },
  },
  { collection: 'consumer_group_members', versionKey: false },
);
memberSchema.index({ group: 1, host: 1 });
// A record only serves the next process on its host; one left by a host that is gone expires.
memberSchema.index({ joined_at: 1 }, { expireAfterSeconds: 7 * 24 * 3600 });

function memberModel(connection: Connection): Model<GroupMemberDocument> {
  return (
    (connection.models.GroupMemberRecord as Model<GroupMemberDocument>) ??
    connection.model('GroupMemberRecord', memberSchema)
  );
}

/** Whether a process of this host (this pid namespace) is running. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The recorded members of a group on this host that are dead: their process is gone, or it had
 * this process's pid (a container's restarted process has the pid of the one before it, and this
 * process has not joined yet when it asks).
 */
export function deadPredecessors<T extends { pid: number }>(
  records: T[],
  ownPid: number,
  running: (pid: number) => boolean = isRunning,
): T[] {
  return records.filter((record) => record.pid === ownPid || !running(record.pid));
}

/** The coordinator calls kafkajs makes for its own consumers; not part of its public API. */
interface KafkajsCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  findGroupCoordinator(request: { groupId: string }): Promise<{
    leaveGroup(request: { groupId: string; memberId: string }): Promise<unknown>;
  }>;
}

/**
 * kafkajs 2.2.4 creates its clusters with a method kept under a private symbol; it is found by
 * the symbol's description. Undefined if a kafkajs version no longer has it (the handover then
 * does nothing and a dead member's partitions wait for its session, as before).
 */
function clusterOf(kafka: Kafka): KafkajsCluster | undefined {
  const symbol = Object.getOwnPropertySymbols(kafka).find((s) => s.description === 'private:Kafka:createCluster');
  const create: unknown = symbol ? Reflect.get(kafka, symbol) : undefined;
  return isClusterFactory(create) ? create({ allowAutoTopicCreation: false }) : undefined;
}

/** The private factory is a function; what it makes is trusted to be kafkajs's cluster. */
function isClusterFactory(value: unknown): value is (options: object) => KafkajsCluster {
  return typeof value === 'function';
}

const HANDOVER_TIMEOUT_MS = 5_000;

/**
 * What static membership (KIP-345, which kafkajs does not implement) gives a restarted consumer:
 * its dead predecessor's partitions at once, instead of after the dead member's session (6 s,
 * CONSUMER_GROUP_TIMING). Each member records its member id with its host and pid in the
 * service's database when it joins. A consumer that starts on the same host reads the records of
 * its group there whose process is gone (or whose pid is its own: a container's restarted process
 * has the pid of the one before it) and sends the broker a LeaveGroup for each of them, right after
 * its own JoinGroup is waiting at the broker: the rebalance then completes with the new member
 * instead of waiting for the dead one's session to expire.
 *
 * A record whose process runs is never touched, so live replicas on the same host are left alone;
 * one in another pid namespace under the same host name would be evicted, which costs it one
 * rejoin (it is a rebalance, which the new member causes anyway), never an event: offsets are
 * committed only after a slice is handled. Any failure leaves the group to the session timeout.
 */
export class GroupMemberHandover {
  private readonly records: Model<GroupMemberDocument>;
  private readonly host = hostname();
  private current?: string;

  constructor(private readonly options: { kafka: Kafka; connection: Connection; groupId: string; logger: Logger }) {
    this.records = memberModel(options.connection);
  }

  /**
   * Starts watching `consumer`: records this process's member id on every join, and once its first
   * JoinGroup request was answered (the broker asks a new member to join again with the id it
   * gives it, so the second request is what waits), evicts the dead predecessors found on this
   * host. Call before `consumer.run`.
   */
  async watch(consumer: Consumer): Promise<void> {
    await this.records.init();
    const recorded = await this.records.find({ group: this.options.groupId, host: this.host }).lean();
    const dead = deadPredecessors(recorded, process.pid);
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => void this.recordJoin(payload.memberId));
    if (dead.length === 0) return;
    let sent = false;
    const evictOnce = () => {
      if (sent) return;
      sent = true;
      clearTimeout(fallback);
      removeListener();
      // Let the second JoinGroup, sent as this one's answer arrives, reach the broker first.
      setTimeout(() => void this.evict(dead), 100).unref();
    };
    const removeListener = consumer.on(consumer.events.REQUEST, ({ payload }) => {
      if (payload.apiName === 'JoinGroup') evictOnce();
    });
    // If the first JoinGroup is not seen (another protocol version), evict all the same.
    const fallback = setTimeout(evictOnce, 2_000);
    fallback.unref();
  }

  /** The process's record is removed when it leaves the group on purpose (a stop). */
  async forget(): Promise<void> {
    const current = this.current;
    this.current = undefined;
    if (current) await this.records.deleteOne({ _id: `${this.options.groupId}|${current}` }).catch(() => undefined);
  }

  private async recordJoin(memberId: string): Promise<void> {
    const { groupId, logger } = this.options;
    const previous = this.current;
    this.current = memberId;
    try {
      if (previous !== memberId) {
        await this.records.updateOne(
          { _id: `${groupId}|${memberId}` },
          {
            $set: { group: groupId, member_id: memberId, host: this.host, pid: process.pid, joined_at: new Date() },
          },
          { upsert: true },
        );
      }
      if (previous && previous !== memberId) await this.records.deleteOne({ _id: `${groupId}|${previous}` });
    } catch (error) {
      logger.warn({ err: error }, 'cannot record the consumer group member; a restart waits for its session');
    }
  }

  private async evict(dead: GroupMemberDocument[]): Promise<void> {
    const { kafka, groupId, logger } = this.options;
    const cluster = clusterOf(kafka);
    if (!cluster) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, HANDOVER_TIMEOUT_MS).unref()));
    const handover = async () => {
      await cluster.connect();
      const coordinator = await cluster.findGroupCoordinator({ groupId });
      for (const record of dead) {
        await coordinator.leaveGroup({ groupId, memberId: record.member_id }).then(
          () => logger.info({ member_id: record.member_id, pid: record.pid }, 'evicted a dead consumer group member'),
          // UNKNOWN_MEMBER_ID: its session has ended already.
          (error: unknown) => logger.debug({ err: error, member_id: record.member_id }, 'no dead member to evict'),
        );
      }
    };
    try {
      await Promise.race([handover(), timeout]);
    } catch (error) {
      logger.warn({ err: error }, 'cannot evict a dead consumer group member; its partitions wait for its session');
    } finally {
      clearTimeout(timer);
      await cluster.disconnect().catch(() => undefined);
      await this.records.deleteMany({ _id: { $in: dead.map((record) => record._id) } }).catch(() => undefined);
    }
  }
}
