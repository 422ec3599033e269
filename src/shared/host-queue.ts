/** A host's own task queue, `<task queue>@<host id>`: the tools that touch its workspace run there. */
export const hostQueueFor = (taskQueue: string, hostId: string) => `${taskQueue}@${hostId}`;

/** The host id a host queue names (what follows its last `@`). */
export const hostIdOf = (hostQueue: string) => hostQueue.slice(hostQueue.lastIndexOf('@') + 1);
