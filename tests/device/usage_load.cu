/*
 * A GPU load of known share, for tests/device/test-nvidia-usage.sh.
 *
 *   usage_load DUTY SECONDS MEMORY_MIB GO_FILE
 *
 * Holds MEMORY_MIB of device memory. Calibrates a fixed-work kernel
 * (enough blocks for every multiprocessor) alone, says so ("ready"), waits
 * for GO_FILE to exist, then for SECONDS runs those kernels DUTY of the
 * time: back to back at 1, else in bursts worth DUTY of every 20 ms of
 * the kernel's time alone. Another process on the GPU slows the bursts
 * (the driver time-slices contexts), so the share each process had is
 * measured, not assumed: the kernels it finished times the kernel's time
 * alone, over the wall time. The last line, JSON with CLOCK_MONOTONIC
 * times:
 *   {"pid":..,"duty":..,"kernel_ms":..,"kernels":..,"start_ns":..,
 *    "end_ns":..,"gpu_share":..,"memory_mib":..}
 *
 * Build: nvcc -O2 -arch=sm_90 -o usage_load usage_load.cu
 */
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <unistd.h>

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

/* Fixed work: every thread iterates the same dependent FMAs. */
__global__ void work(float *out, int iterations)
{
	float a = threadIdx.x * 1e-3f, b = 1.0001f, c = 0.9999f;
	for (int i = 0; i < iterations; i++)
		a = fmaf(a, b, c);
	if (a == -1.0f)
		out[blockIdx.x] = a;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: usage_load DUTY SECONDS MEMORY_MIB GO_FILE\n");
		return 2;
	}
	double duty = atof(argv[1]), seconds = atof(argv[2]);
	size_t mib = strtoull(argv[3], NULL, 10);
	const char *go = argv[4];
	int sms;
	CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	void *memory;
	CHECK(cudaMalloc(&memory, mib << 20));
	CHECK(cudaMemset(memory, 1, mib << 20));
	float *out;
	CHECK(cudaMalloc(&out, 4096 * sizeof(float)));
	int blocks = sms * 4, threads = 512;

	/* About 2 ms of work, timed alone over a few launches. */
	int iterations = 200000;
	cudaEvent_t e0, e1;
	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));
	float ms = 0;
	for (int round = 0; round < 3; round++) {
		work<<<blocks, threads>>>(out, iterations);
		CHECK(cudaEventRecord(e0));
		for (int i = 0; i < 10; i++)
			work<<<blocks, threads>>>(out, iterations);
		CHECK(cudaEventRecord(e1));
		CHECK(cudaEventSynchronize(e1));
		CHECK(cudaEventElapsedTime(&ms, e0, e1));
		ms /= 10;
		iterations = (int)(iterations * 2.0 / ms);
	}
	work<<<blocks, threads>>>(out, iterations);
	CHECK(cudaEventRecord(e0));
	for (int i = 0; i < 20; i++)
		work<<<blocks, threads>>>(out, iterations);
	CHECK(cudaEventRecord(e1));
	CHECK(cudaEventSynchronize(e1));
	CHECK(cudaEventElapsedTime(&ms, e0, e1));
	double kernel_ms = ms / 20;
	printf("{\"ready\":true,\"pid\":%d,\"kernel_ms\":%.4f}\n", getpid(), kernel_ms);
	fflush(stdout);

	while (access(go, F_OK))
		usleep(1000);
	unsigned long long start = monotonic_ns();
	unsigned long long end = start + (unsigned long long)(seconds * 1e9);
	unsigned long long kernels = 0;
	if (duty >= 1) {
		while (monotonic_ns() < end) {
			for (int i = 0; i < 8; i++)
				work<<<blocks, threads>>>(out, iterations);
			CHECK(cudaDeviceSynchronize());
			kernels += 8;
		}
	} else {
		const double period_ms = 20;
		int burst = (int)(duty * period_ms / kernel_ms + 0.5);
		unsigned long long next = start;
		while (monotonic_ns() < end) {
			for (int i = 0; i < burst; i++)
				work<<<blocks, threads>>>(out, iterations);
			CHECK(cudaDeviceSynchronize());
			kernels += burst;
			next += (unsigned long long)(period_ms * 1e6);
			unsigned long long now = monotonic_ns();
			if (next > now)
				usleep((useconds_t)((next - now) / 1000));
			else
				next = now;
		}
	}
	unsigned long long stop = monotonic_ns();
	double share = kernels * kernel_ms / ((stop - start) / 1e6);
	printf("{\"pid\":%d,\"duty\":%.3f,\"kernel_ms\":%.4f,\"kernels\":%llu,"
	       "\"start_ns\":%llu,\"end_ns\":%llu,\"gpu_share\":%.4f,"
	       "\"memory_mib\":%zu}\n", getpid(), duty, kernel_ms, kernels, start,
	       stop, share, mib);
	fflush(stdout);
	cudaFree(out);
	cudaFree(memory);
	return 0;
}
