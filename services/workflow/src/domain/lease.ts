/** Which replica runs an execution (`owner`, null for none) and until when, unless it renews. */
export interface Lease {
  owner: string | null;
  until: Date;
}

/** The lease of an execution that is not run anywhere: any replica's poller may take it. */
export const NO_LEASE: Lease = { owner: null, until: new Date(0) };
