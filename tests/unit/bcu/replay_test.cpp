// Replay parser tests; filled in with the replayer.
