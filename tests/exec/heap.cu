// Device heap: malloc/free and new/delete in kernels, blocks that live
// across launches, cudaDeviceGetLimit/SetLimit(cudaLimitMallocHeapSize) and
// exhaustion (malloc returns NULL).
#include "common.h"
#include <new>

struct Node {
  int value;
  Node *next;
};

// Each thread builds a small array on the heap, sums it, frees it.
__global__ void per_thread(int *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int *p = static_cast<int *>(malloc(n * sizeof(int)));
  if (!p) {
    out[t] = -1;
    return;
  }
  for (int i = 0; i < n; ++i)
    p[i] = t + i;
  int s = 0;
  for (int i = 0; i < n; ++i)
    s += p[i];
  out[t] = s;
  free(p);
}

// A linked list built with new in one launch, read in the next, deleted in
// a third: heap blocks outlive the launch that made them.
__device__ Node *list_head;

__global__ void build(int n) {
  Node *head = nullptr;
  for (int i = 0; i < n; ++i) {
    Node *node = new Node;
    node->value = i * i;
    node->next = head;
    head = node;
  }
  list_head = head;
}

__global__ void sum_list(long long *out) {
  long long s = 0;
  for (Node *p = list_head; p; p = p->next)
    s += p->value;
  *out = s;
}

__global__ void destroy() {
  Node *p = list_head;
  while (p) {
    Node *next = p->next;
    delete p;
    p = next;
  }
  list_head = nullptr;
  int *arr = new int[64];
  for (int i = 0; i < 64; ++i)
    arr[i] = i;
  delete[] arr;
}

// malloc of more than the heap holds returns NULL; after freeing, the space
// is there again.
__global__ void exhaust(unsigned long long *out, size_t big) {
  void *a = malloc(big);
  void *b = malloc(big);
  out[0] = a != nullptr;
  out[1] = b != nullptr;
  free(a);
  free(b);
  void *c = malloc(big);
  out[2] = c != nullptr;
  out[3] = reinterpret_cast<unsigned long long>(c) % 16;
  free(c);
}

int main() {
  size_t limit = 0;
  CHECK(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize));
  EXPECT(limit == 8u << 20); // the default, as on the GPU
  // The heap is at least 4 MiB; its size can change until a kernel has
  // called malloc or free.
  CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20));
  CHECK(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize));
  EXPECT(limit == 4u << 20);

  const int blocks = 4, threads = 64, n = 10;
  int *out;
  CHECK(cudaMalloc(&out, blocks * threads * sizeof(int)));
  per_thread<<<blocks, threads>>>(out, n);
  CHECK(cudaGetLastError());
  int h[blocks * threads];
  CHECK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
  for (int t = 0; t < blocks * threads; ++t)
    EXPECT(h[t] == n * t + n * (n - 1) / 2);

  build<<<1, 1>>>(100);
  long long *sum;
  CHECK(cudaMalloc(&sum, sizeof(long long)));
  sum_list<<<1, 1>>>(sum);
  long long hs = 0;
  CHECK(cudaMemcpy(&hs, sum, sizeof(hs), cudaMemcpyDeviceToHost));
  EXPECT(hs == 328350); // sum of i^2 for i < 100
  destroy<<<1, 1>>>();
  CHECK(cudaDeviceSynchronize());

  // Now its size is fixed.
  EXPECT(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 16 << 20) ==
         cudaErrorInvalidValue);
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize));
  EXPECT(limit == 4u << 20);

  // A 4 MiB heap: two 3 MiB blocks do not fit, one does.
  unsigned long long *flags;
  CHECK(cudaMalloc(&flags, 4 * sizeof(unsigned long long)));
  exhaust<<<1, 1>>>(flags, 3 << 20);
  unsigned long long hf[4];
  CHECK(cudaMemcpy(hf, flags, sizeof(hf), cudaMemcpyDeviceToHost));
  EXPECT(hf[0] == 1);
  EXPECT(hf[1] == 0);
  EXPECT(hf[2] == 1);
  EXPECT(hf[3] == 0);

  CHECK(cudaFree(out));
  CHECK(cudaFree(sum));
  CHECK(cudaFree(flags));
  return finish("heap");
}
