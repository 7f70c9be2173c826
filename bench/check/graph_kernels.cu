// Graph benchmark kernels for bench/check (nvcc -ptx -lineinfo -arch=sm_90
// graph_kernels.cu -o graph_kernels.ptx): one step of two irregular graph
// algorithms over a graph in CSR form (row offsets, column indices), thread
// per vertex. Hub vertices, adjacent to every other vertex, make a few
// words read and written by threads of every CTA of the launch: the
// checker's cost as such words gain accessors (docs/performance.md
// "Checker", "Graph kernels").
//
// Shared words are accessed through `volatile` (relaxed .sys strong
// accesses, morally strong with each other and with the atomics), as such
// code is written to be race-free; the flag `changed` (when not null) is a
// plain store of the same value by many threads (a benign race), the flag
// `vchanged` (bfs_step, when not null) a `volatile` one (morally strong).

#define GRAPH_INF 0x7fffffff

// Level-synchronous BFS, top-down: every vertex of the frontier (distance
// `level`) gives each undiscovered neighbour the distance level + 1 and
// appends it to the next frontier (`next`, `next_size` by atomicAdd).
extern "C" __global__ void bfs_step(const int *row, const int *col,
                                    volatile int *dist, int *next,
                                    int *next_size, int *changed, int n,
                                    int level, volatile int *vchanged) {
  const int u = blockIdx.x * blockDim.x + threadIdx.x;
  if (u >= n || dist[u] != level)
    return;
  for (int e = row[u]; e < row[u + 1]; ++e) {
    const int v = col[e];
    if (dist[v] == GRAPH_INF) {
      dist[v] = level + 1;
      next[atomicAdd(next_size, 1)] = v;
      if (changed)
        *changed = 1;
      if (vchanged)
        *vchanged = 1;
    }
  }
}

// Label propagation (connected components): every vertex lowers each
// neighbour's label to its own with atomicMin where it is lower.
extern "C" __global__ void label_step(const int *row, const int *col,
                                      volatile int *label, int *changed,
                                      int n) {
  const int u = blockIdx.x * blockDim.x + threadIdx.x;
  if (u >= n)
    return;
  const int m = label[u];
  for (int e = row[u]; e < row[u + 1]; ++e) {
    const int v = col[e];
    if (label[v] > m) {
      atomicMin(const_cast<int *>(&label[v]), m);
      if (changed)
        *changed = 1;
    }
  }
}
