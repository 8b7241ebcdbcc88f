/* Every ARMADA_* setting, declared once: X(field, NAME, type, default,
 * choices, help). The struct, the parser, the help text and armada-info's
 * listing are all generated from this list. Types: BOOL, INT, SIZE (accepts
 * k/m/g suffixes), ENUM (index into the '|'-separated choices). */
#define ARM_CONFIG_TABLE(X) \
    X(ppn, "PPN", INT, "0", NULL, \
      "Processes per virtual node: consecutive ranks are grouped into nodes of this many " \
      "processes. 0 means nodes are the hosts.") \
    X(log_level, "LOG_LEVEL", ENUM, "warn", "error|warn|info|debug", \
      "Least severe message printed.") \
    X(stats, "STATS", BOOL, "0", NULL, \
      "Print per-path operation and byte counts and server buffer memory at ARMCI_Finalize.") \
    X(progress, "PROGRESS", ENUM, "hybrid", "poll|block|hybrid", \
      "How the communication server waits for work: poll, block on the transport's " \
      "event descriptor, or poll briefly then block.") \
    X(poll_spins, "POLL_SPINS", INT, "200", NULL, \
      "In hybrid progress, empty polls before the server blocks.") \
    X(yield_us, "YIELD_US", INT, "100", NULL, \
      "A process waiting for a remote operation, after its polls, yields the CPU for up " \
      "to this many microseconds before it sleeps (0: sleeps at once).") \
    X(rma_path, "RMA_PATH", ENUM, "auto", "auto|rma|server", \
      "Path of contiguous inter-node put and get: auto picks direct RMA when the transport " \
      "does RMA natively, else the server.") \
    X(amo_path, "AMO_PATH", ENUM, "auto", "auto|amo|server", \
      "Path of inter-node fetch-and-add and swap: transport atomics or the server.") \
    X(aggregate, "AGGREGATE", BOOL, "1", NULL, \
      "Pack small inter-node puts and accumulates to one node into one request, sent " \
      "at the next fence or other operation (0: send each at once).") \
    X(server_slots, "SERVER_SLOTS", INT, "4", NULL, \
      "Request slots (credits) a server keeps for each remote client.") \
    X(slot_size, "SLOT_SIZE", SIZE, "16k", NULL, \
      "Bytes per server request slot; larger requests are pipelined in slot-size chunks.") \
    X(pipeline_depth, "PIPELINE_DEPTH", INT, "4", NULL, \
      "Chunks of one large strided or vector transfer kept in flight at once.") \
    X(peer_timeout, "PEER_TIMEOUT", INT, "30", NULL, \
      "Seconds without progress from a peer that is known to be gone before aborting.") \
    X(warn_unfreed, "WARN_UNFREED", BOOL, "1", NULL, \
      "Warn at ARMCI_Finalize about allocations the program did not free.") \
    X(shm_limit, "SHM_LIMIT", SIZE, "0", NULL, \
      "Largest total of shared memory one process may allocate; 0 means no limit.") \
    X(server_comp_delay_us, "SERVER_COMP_DELAY_US", INT, "0", NULL, \
      "Test only: the communication server learns that a reply was sent this many " \
      "microseconds after the transport says so, widening the window between a reply " \
      "and the client's next request (0: off).")
