/* Every ARMADA_* setting, declared once: X(field, NAME, type, default,
 * choices, category, help). The struct, the parser, the help text and
 * armada-info's listing (grouped by category) are all generated from this
 * list. Types: BOOL, INT, SIZE (accepts k/m/g suffixes), ENUM (index into
 * the '|'-separated choices). Categories: TRANSPORT, SERVER, TOPOLOGY,
 * CONNECTIONS, PROTOCOLS, DIAGNOSTICS (arm_cfg_cat_t). */
#define ARM_CONFIG_TABLE(X) \
    X(ppn, "PPN", INT, "0", NULL, TOPOLOGY, \
      "Processes per virtual node: consecutive ranks are grouped into nodes of this many " \
      "processes. 0 means nodes are the hosts.") \
    X(topology, "TOPOLOGY", ENUM, "auto", "auto|fcg|mfcg|cfcg|hypercube", TOPOLOGY, \
      "Virtual topology of the nodes' servers (hicoo 3.2): fcg keeps request slots in every " \
      "server for every remote process; mfcg, cfcg and hypercube keep them for the " \
      "processes of neighbour nodes only, and requests for other nodes are forwarded " \
      "lowest dimension first, aggregated and combined on the way. auto: the first of " \
      "fcg, mfcg, cfcg whose buffers per server stay within TOPOLOGY_AUTO_MAX, cfcg when " \
      "none does (decisions 043, 049).") \
    X(topology_auto_max, "TOPOLOGY_AUTO_MAX", SIZE, "32m", NULL, TOPOLOGY, \
      "Under TOPOLOGY=auto, the largest request-slot memory per server (processes with " \
      "slots x SERVER_SLOTS x SLOT_SIZE) a topology may take to be chosen.") \
    X(topology_dims, "TOPOLOGY_DIMS", TEXT, "", NULL, TOPOLOGY, \
      "Extents of the topology's dimensions, lowest first (\"4x4\", \"2x3x3\"); empty: " \
      "chosen from the node count.") \
    X(edge_slots, "EDGE_SLOTS", INT, "4", NULL, TOPOLOGY, \
      "Slots a server keeps for each neighbour server that forwards to it (each holds one " \
      "message of up to a slot of requests).") \
    X(combine, "COMBINE", BOOL, "1", NULL, TOPOLOGY, \
      "Combine fetch-and-adds to one address that meet at a forwarding server into one.") \
    X(split_replies, "SPLIT_REPLIES", BOOL, "1", NULL, TOPOLOGY, \
      "Answer the origins of a combined fetch-and-add through the server that combined it: " \
      "one message from the target instead of one per origin (decision 047).") \
    X(shm_limit, "SHM_LIMIT", SIZE, "0", NULL, TOPOLOGY, \
      "Largest total of shared memory one process may allocate; 0 means no limit.") \
    X(shm_named, "SHM_NAMED", BOOL, "0", NULL, TOPOLOGY, \
      "Give node segments names in /dev/shm instead of passing anonymous memory files " \
      "through /proc (the fallback when that fails; for tests of it).") \
    X(rma_path, "RMA_PATH", ENUM, "auto", "auto|rma|server", TRANSPORT, \
      "Path of contiguous inter-node put and get: auto picks direct RMA when the transport " \
      "does RMA natively, else the server.") \
    X(amo_path, "AMO_PATH", ENUM, "auto", "auto|amo|server", TRANSPORT, \
      "Path of inter-node fetch-and-add and swap: transport atomics or the server. amo " \
      "also marks allocations for them under AMO_ALLOC=auto (decision 061).") \
    X(vnode_map, "VNODE_MAP", BOOL, "1", NULL, TRANSPORT, \
      "Where UCX reaches another node through this host's shared memory (virtual nodes " \
      "of one host, UCX_TLS with cma or sm), map that node's segments too and do the " \
      "transport's puts and gets to them with memcpy, as cma would but without a system " \
      "call (decision 068). Atomics and the server paths are unchanged.") \
    X(clean_get_max, "CLEAN_GET_MAX", SIZE, "4k", NULL, TRANSPORT, \
      "Where the transport emulates RMA, gets up to this size to a node with no writes " \
      "outstanding use the transport's own get (decision 009); 0: never.") \
    X(zcopy_min, "ZCOPY_MIN", SIZE, "64k", NULL, TRANSPORT, \
      "Where a node is reached by a zero-copy transport, puts and gets from this size " \
      "take it even with server-path writes outstanding (decision 017).") \
    X(reply_eager_max, "REPLY_EAGER_MAX", SIZE, "256k", NULL, TRANSPORT, \
      "Over a stream transport (TCP), servers send get replies up to this size eagerly " \
      "(decision 012); 0: the transport's own choice.") \
    X(reply_pack_below, "REPLY_PACK_BELOW", SIZE, "8k", NULL, TRANSPORT, \
      "A server packs a segmented get's reply (strided, vector) into one buffer when its " \
      "pieces average fewer than this many bytes, instead of sending them as a gather " \
      "list, which UCX splits into many small sends (decision 073); 0: never.") \
    X(yield_us, "YIELD_US", INT, "100", NULL, TRANSPORT, \
      "A process waiting for a remote operation or in ARMCI_Barrier, after its polls, " \
      "yields the CPU for up to this many microseconds before it sleeps (0: sleeps at " \
      "once).") \
    X(barrier_yield_us, "BARRIER_YIELD_US", INT, "300", NULL, TRANSPORT, \
      "The same window for a process waiting in a barrier (ARMCI_Barrier, the barrier " \
      "that starts ARMCI_Malloc and ARMCI_Free, armci_msg_barrier); -1: ARMADA_YIELD_US " \
      "(decision 092).") \
    X(client_poll_yield, "CLIENT_POLL_YIELD", INT, "16", NULL, TRANSPORT, \
      "Over a stream transport (TCP), a waiting client yields the CPU once every this " \
      "many empty polls while it polls (decision 016); 0: never.") \
    X(progress, "PROGRESS", ENUM, "hybrid", "poll|block|hybrid", SERVER, \
      "How the communication server waits for work: poll, block on the transport's " \
      "event descriptor, or poll briefly then block.") \
    X(poll_spins, "POLL_SPINS", INT, "200", NULL, SERVER, \
      "In hybrid progress, empty polls before the server blocks.") \
    X(server_yield_after, "SERVER_YIELD_AFTER", INT, "16", NULL, SERVER, \
      "Empty polls before a server yields the CPU between polls (on an oversubscribed " \
      "host over a stream transport it yields from the first, decision 016).") \
    X(server_slots, "SERVER_SLOTS", INT, "4", NULL, SERVER, \
      "Request slots (credits) a server keeps for each remote client.") \
    X(slot_size, "SLOT_SIZE", SIZE, "16k", NULL, SERVER, \
      "Bytes per server request slot (1k to 1g); larger requests are pipelined in " \
      "slot-size chunks.") \
    X(connect, "CONNECT", ENUM, "lazy", "lazy|eager|edges", CONNECTIONS, \
      "When endpoints between nodes are made (odcm): lazy makes a client's endpoint to a " \
      "node's server at its first operation there, and the server's endpoint back at that " \
      "client's first request; start-up exchanges only the servers' addresses. eager makes " \
      "every endpoint in ARMCI_Init. edges is lazy, and under a virtual topology connects " \
      "only along its edges: everything for other nodes is forwarded, answers included.") \
    X(peer_timeout, "PEER_TIMEOUT", INT, "30", NULL, CONNECTIONS, \
      "Seconds a process waits for an answer from another node (a mutex excepted) before " \
      "it stops the job naming the call, the rank and its node.") \
    X(aggregate, "AGGREGATE", BOOL, "1", NULL, PROTOCOLS, \
      "Pack small inter-node puts and accumulates to one node into one request, sent " \
      "at the next fence or other operation (0: send each at once).") \
    X(batch_max_op, "BATCH_MAX_OP", SIZE, "2k", NULL, PROTOCOLS, \
      "Largest put or accumulate that is aggregated (also bounded by what fits a slot).") \
    X(copy_put_max, "COPY_PUT_MAX", SIZE, "4k", NULL, PROTOCOLS, \
      "Largest put copied into a request buffer and sent without waiting (also bounded " \
      "by the slot size); larger puts are sent from the source.") \
    X(eager_write_max, "EAGER_WRITE_MAX", SIZE, "256k", NULL, PROTOCOLS, \
      "A put (or, over a stream transport, an accumulate) larger than a slot is one eager " \
      "request up to this size, a rendezvous beyond (decision 013).") \
    X(seg_stream_max, "SEG_STREAM_MAX", SIZE, "256k", NULL, PROTOCOLS, \
      "Over a stream transport (TCP), the packed requests of a strided or vector transfer " \
      "to a node reached directly carry up to this many bytes each, sent eagerly, where " \
      "they would otherwise carry a slot's worth (also bounded by EAGER_WRITE_MAX and " \
      "REPLY_EAGER_MAX; decision 072). At most the slot size: a slot's worth.") \
    X(pipeline_depth, "PIPELINE_DEPTH", INT, "4", NULL, PROTOCOLS, \
      "Chunks of one large strided or vector transfer kept in flight at once.") \
    X(strided_rma_min, "STRIDED_RMA_MIN", SIZE, "8k", NULL, PROTOCOLS, \
      "Strided and vector chunks from this size on go by the transport's put or get " \
      "straight to the target's segment, ARMADA_PIPELINE_DEPTH in flight, where it does " \
      "RMA natively (puts also where it copies zero-copy, e.g. cma) or RMA is forced; " \
      "smaller ones are packed through the server (decision 057).") \
    X(nb_agent, "NB_AGENT", BOOL, "1", NULL, PROTOCOLS, \
      "A progress thread per process carries non-blocking transfers to other nodes while " \
      "the caller computes; it sleeps when it has none (decision 056).") \
    X(batch_idle_us, "BATCH_IDLE_US", INT, "1000", NULL, PROTOCOLS, \
      "The progress agent sends an aggregation batch that nothing joined for this many " \
      "microseconds, so that a lone small put leaves while the caller computes (decision " \
      "076); the look after doubles, up to 1 ms or this, while writes keep joining. Its " \
      "watch for acknowledgements also sends the process's batch once the caller has " \
      "stayed out of ARMCI for a whole nap (decision 080). -1: a batch leaves only at " \
      "the process's next call.") \
    X(nb_agent_min, "NB_AGENT_MIN", SIZE, "16k", NULL, PROTOCOLS, \
      "Non-blocking transfers from this size on go to the progress agent; smaller ones " \
      "are issued before the call returns (decision 056).") \
    X(amo_alloc, "AMO_ALLOC", ENUM, "auto", "auto|on|off", PROTOCOLS, \
      "Mark every ARMCI_Malloc allocation for transport atomics: its read-modify-writes " \
      "and integer accumulates, same node included, then all go by UCX's atomics, never " \
      "by CPU atomics or a server (decision 061). auto: when UCX does atomics natively, " \
      "or AMO_PATH=amo; on: always (tests); off: never. Not under CONNECT=edges.") \
    X(acc_proto, "ACC_PROTO", ENUM, "auto", "auto|server|origin", PROTOCOLS, \
      "Protocol of a contiguous inter-node accumulate: server (the target node's server " \
      "combines it), origin (the origin takes the target rank's accumulate lock, gets, " \
      "combines and puts back in chunks, three in flight), or auto: origin from " \
      "ACC_ORIGIN_MIN bytes (decision 060). Nodes reached by forwarding, threads and " \
      "strided accumulates always use the server.") \
    X(acc_origin_min, "ACC_ORIGIN_MIN", SIZE, "0", NULL, PROTOCOLS, \
      "Under ACC_PROTO=auto, the smallest contiguous accumulate done at the origin, to " \
      "nodes the transport's RMA reaches (natively or zero-copy); 0: none (decision 060).") \
    X(acc_origin_chunk, "ACC_ORIGIN_CHUNK", SIZE, "256k", NULL, PROTOCOLS, \
      "Chunk of an accumulate done at the origin when the transport's RMA carries it " \
      "(three such buffers per process, made at first use); through the server a chunk " \
      "is a slot.") \
    X(fence_ack_us, "FENCE_ACK_US", INT, "50", NULL, PROTOCOLS, \
      "A server idle this many microseconds returns the credits of each client whose " \
      "requests are all served, so that the client's next fence to the node sends no " \
      "message (decision 058); a reply meanwhile carries them instead. -1: never.") \
    X(symmetric, "SYMMETRIC", BOOL, "0", NULL, PROTOCOLS, \
      "Symmetric heap: ARMCI_Malloc over the world takes the same offset of a heap " \
      "every process reserves at start, so no addresses are exchanged and a remote " \
      "address translates without a search (decision 059).") \
    X(symmetric_heap, "SYMMETRIC_HEAP", SIZE, "256m", NULL, PROTOCOLS, \
      "Bytes of each process's symmetric heap (address space; pages are committed " \
      "per allocation). An allocation that does not fit stops the program.") \
    X(log_level, "LOG_LEVEL", ENUM, "warn", "error|warn|info|debug", DIAGNOSTICS, \
      "Least severe message printed.") \
    X(stats, "STATS", BOOL, "0", NULL, DIAGNOSTICS, \
      "Print per-path operation and byte counts and server buffer memory at ARMCI_Finalize.") \
    X(warn_unfreed, "WARN_UNFREED", BOOL, "1", NULL, DIAGNOSTICS, \
      "Warn at ARMCI_Finalize about allocations the program did not free.") \
    X(test_inject, "TEST_INJECT", ENUM, "none", "none|header|oversize|credit|sync|addr|op", \
      DIAGNOSTICS, \
      "Test only: the client corrupts one request of a suitable kind so that its server " \
      "refuses it (short header, payload over a slot, no credit, second sync request, " \
      "address outside every segment, unknown operation).") \
    X(server_comp_delay_us, "SERVER_COMP_DELAY_US", INT, "0", NULL, DIAGNOSTICS, \
      "Test only: the communication server learns that a reply was sent this many " \
      "microseconds after the transport says so, widening the window between a reply " \
      "and the client's next request (0: off).")
