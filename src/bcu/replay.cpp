// placeholder until the replayer lands
