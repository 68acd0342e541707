/*
 * The GPU workload of tests/device/test-nvidia.sh, in phases, each
 * announced on stdout as one JSON line with its CLOCK_MONOTONIC span:
 *
 *   idle    nothing runs
 *   copy    a device-to-device copy kernel over two 4 GiB buffers; the
 *           line carries the bandwidth it measured itself (bytes read plus
 *           bytes written per second), what the daemon's DRAM counters
 *           must match
 *   elementwise
 *           c = a * b + c over three 2 GiB float4 buffers (three read,
 *           one written): memory-bound like the copy, with writes that
 *           depend on reads; the line carries its bandwidth
 *   small   many small kernels (one block each, a few microseconds), one
 *           after another: the launch path and the front end busy, the
 *           memory not
 *   gemm    cuBLAS fp16 matrix products on the tensor cores
 *   idle    again
 *
 *   workload [SECONDS_PER_PHASE [copy|elementwise|small|gemm]]
 *           (one phase only, if named)
 *
 * Build: nvcc -O2 -arch=sm_90 -o workload workload.cu -lcublas
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <unistd.h>

#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define CHECK(call)                                                          \
	do {                                                                 \
		cudaError_t e_ = (call);                                     \
		if (e_ != cudaSuccess) {                                     \
			fprintf(stderr, "%s: %s\n", #call,                   \
				cudaGetErrorString(e_));                     \
			exit(1);                                             \
		}                                                            \
	} while (0)

static unsigned long long monotonic_ns()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void announce(const char *phase, unsigned long long start,
		     unsigned long long end, const char *extra)
{
	printf("{\"phase\":\"%s\",\"start_ns\":%llu,\"end_ns\":%llu%s}\n", phase,
	       start, end, extra);
	fflush(stdout);
}

static void idle(double seconds)
{
	unsigned long long start = monotonic_ns();
	usleep((useconds_t)(seconds * 1e6));
	announce("idle", start, monotonic_ns(), "");
}

__global__ void copy(const float4 *__restrict__ in, float4 *__restrict__ out,
		     size_t n)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += stride)
		out[i] = in[i];
}

static void copy_phase(double seconds)
{
	const size_t bytes = 4ull << 30;
	const size_t n = bytes / sizeof(float4);
	float4 *a, *b;
	CHECK(cudaMalloc(&a, bytes));
	CHECK(cudaMalloc(&b, bytes));
	CHECK(cudaMemset(a, 1, bytes));
	CHECK(cudaDeviceSynchronize());
	int sms;
	CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

	unsigned long long start = monotonic_ns(), deadline =
		start + (unsigned long long)(seconds * 1e9);
	unsigned long long launches = 0;
	while (monotonic_ns() < deadline) {
		/* A batch per check keeps the GPU fed between host looks. */
		for (int i = 0; i < 8; i++) {
			copy<<<sms * 8, 512>>>(a, b, n);
			launches++;
		}
		CHECK(cudaDeviceSynchronize());
	}
	unsigned long long end = monotonic_ns();
	CHECK(cudaGetLastError());
	double gbps = 2.0 * bytes * launches / (double)(end - start);
	char extra[96];
	snprintf(extra, sizeof(extra), ",\"gbps\":%.1f,\"launches\":%llu", gbps,
		 launches);
	announce("copy", start, end, extra);
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
}

__global__ void multiply_add(const float4 *__restrict__ a,
			     const float4 *__restrict__ b,
			     float4 *__restrict__ c, size_t n)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += stride) {
		float4 x = a[i], y = b[i], z = c[i];
		c[i] = make_float4(x.x * y.x + z.x, x.y * y.y + z.y,
				   x.z * y.z + z.z, x.w * y.w + z.w);
	}
}

static void elementwise_phase(double seconds)
{
	const size_t bytes = 2ull << 30;
	const size_t n = bytes / sizeof(float4);
	float4 *a, *b, *c;
	CHECK(cudaMalloc(&a, bytes));
	CHECK(cudaMalloc(&b, bytes));
	CHECK(cudaMalloc(&c, bytes));
	CHECK(cudaMemset(a, 0, bytes));
	CHECK(cudaMemset(b, 0, bytes));
	CHECK(cudaMemset(c, 0, bytes));
	CHECK(cudaDeviceSynchronize());
	int sms;
	CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

	unsigned long long start = monotonic_ns(), deadline =
		start + (unsigned long long)(seconds * 1e9);
	unsigned long long launches = 0;
	while (monotonic_ns() < deadline) {
		for (int i = 0; i < 8; i++) {
			multiply_add<<<sms * 8, 512>>>(a, b, c, n);
			launches++;
		}
		CHECK(cudaDeviceSynchronize());
	}
	unsigned long long end = monotonic_ns();
	CHECK(cudaGetLastError());
	/* Three buffers read, one written. */
	double gbps = 4.0 * bytes * launches / (double)(end - start);
	char extra[96];
	snprintf(extra, sizeof(extra), ",\"gbps\":%.1f,\"launches\":%llu", gbps,
		 launches);
	announce("elementwise", start, end, extra);
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
	CHECK(cudaFree(c));
}

__global__ void small_kernel(float *x)
{
	x[threadIdx.x] = x[threadIdx.x] * 0.5f + 1.0f;
}

static void small_phase(double seconds)
{
	float *x;
	CHECK(cudaMalloc(&x, 256 * sizeof(float)));
	CHECK(cudaMemset(x, 0, 256 * sizeof(float)));
	unsigned long long start = monotonic_ns(), deadline =
		start + (unsigned long long)(seconds * 1e9);
	unsigned long long launches = 0;
	while (monotonic_ns() < deadline) {
		for (int i = 0; i < 1000; i++) {
			small_kernel<<<1, 256>>>(x);
			launches++;
		}
		CHECK(cudaDeviceSynchronize());
	}
	unsigned long long end = monotonic_ns();
	CHECK(cudaGetLastError());
	char extra[64];
	snprintf(extra, sizeof(extra), ",\"launches\":%llu", launches);
	announce("small", start, end, extra);
	CHECK(cudaFree(x));
}

static void gemm_phase(double seconds)
{
	const int n = 8192;
	half *a, *b, *c;
	CHECK(cudaMalloc(&a, sizeof(half) * n * n));
	CHECK(cudaMalloc(&b, sizeof(half) * n * n));
	CHECK(cudaMalloc(&c, sizeof(half) * n * n));
	CHECK(cudaMemset(a, 0x11, sizeof(half) * n * n));
	CHECK(cudaMemset(b, 0x11, sizeof(half) * n * n));
	cublasHandle_t h;
	if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
		fprintf(stderr, "cublasCreate failed\n");
		exit(1);
	}
	float alpha = 1, beta = 0;
	unsigned long long start = monotonic_ns(), deadline =
		start + (unsigned long long)(seconds * 1e9);
	unsigned long long products = 0;
	while (monotonic_ns() < deadline) {
		for (int i = 0; i < 4; i++) {
			cublasStatus_t s = cublasGemmEx(
				h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha,
				a, CUDA_R_16F, n, b, CUDA_R_16F, n, &beta, c,
				CUDA_R_16F, n, CUBLAS_COMPUTE_32F,
				CUBLAS_GEMM_DEFAULT);
			if (s != CUBLAS_STATUS_SUCCESS) {
				fprintf(stderr, "cublasGemmEx failed: %d\n", s);
				exit(1);
			}
			products++;
		}
		CHECK(cudaDeviceSynchronize());
	}
	unsigned long long end = monotonic_ns();
	double tflops = 2.0 * n * n * (double)n * products / (double)(end - start) / 1e3;
	char extra[96];
	snprintf(extra, sizeof(extra), ",\"tflops\":%.1f,\"products\":%llu",
		 tflops, products);
	announce("gemm", start, end, extra);
	cublasDestroy(h);
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
	CHECK(cudaFree(c));
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3;
	const char *only = argc > 2 ? argv[2] : NULL;
	/* The context first, so that its setup is not part of a phase. */
	CHECK(cudaFree(0));
	if (only && !strcmp(only, "copy")) {
		copy_phase(seconds);
		return 0;
	}
	if (only && !strcmp(only, "gemm")) {
		gemm_phase(seconds);
		return 0;
	}
	if (only && !strcmp(only, "elementwise")) {
		elementwise_phase(seconds);
		return 0;
	}
	if (only && !strcmp(only, "small")) {
		small_phase(seconds);
		return 0;
	}
	idle(seconds);
	copy_phase(seconds);
	elementwise_phase(seconds);
	small_phase(seconds);
	gemm_phase(seconds);
	idle(seconds / 2);
	return 0;
}
