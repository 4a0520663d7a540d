/* MPI_Allreduce (sum) of a buffer of f32 across the ranks, timed per call: the baseline of
   bench/mpi_allreduce.R. Usage: allreduce ELEMENTS ROUNDS; rank 0 prints one time (seconds) per
   round. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long n = argc > 1 ? atol(argv[1]) : 16L << 20;
  const int rounds = argc > 2 ? atoi(argv[2]) : 10;
  float* in = malloc(sizeof(float) * (size_t)n);
  float* out = malloc(sizeof(float) * (size_t)n);
  for (long i = 0; i < n; ++i) in[i] = (float)(i % 1000) / 7.0f;
  for (int r = 0; r < rounds; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    MPI_Allreduce(in, out, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    const double took = MPI_Wtime() - start;
    if (rank == 0) printf("%.6f\n", took);
  }
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
