/*
 * pspotrf_bench: ScaLAPACK's single-precision Cholesky (pspotrf, lower) on a
 * BLACS grid, timed the way tools/cholesky-sitting compares it with texpr's
 * block-layer `cholesky` (issue 30). Not a test: nothing in .ci/run or the
 * test suite builds or runs it.
 *
 *   mpirun -np P*Q pspotrf_bench --npy A.npy --nb NB --grid PxQ [--runs R]
 *                                [--out L.npy]
 *
 * Expects: an N x N symmetric positive definite float32 `.npy` (C or Fortran
 * order; only its lower triangle is read, as pspotrf("L") reads it) at the
 * same path on every rank, and P*Q MPI processes. Rank r is grid position
 * (r / Q, r % Q) (a row-major BLACS grid: texpr's placement), and A is
 * distributed 2D block-cyclically in NB x NB blocks from position (0, 0).
 *
 * Guarantees: each rank reads only its own elements (the file is mapped), and
 * keeps a pristine copy of its local part; every run factors a fresh copy of
 * it, timed by MPI_Barrier + MPI_Wtime around the pspotrf_ call alone (the
 * barrier before the first MPI_Wtime; the time is rank 0's, after a barrier
 * that waits for every rank to finish). Prints one line per run and a
 * `pspotrf median:` line (the median of the R times). A non-zero INFO is an
 * error (exit 1). With --out, the last run's factor is written to one
 * Fortran-order `.npy` (zeros above the diagonal), each rank writing its own
 * elements at their offsets, for the script's check against numpy.
 */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* BLACS (C interface) and ScaLAPACK (Fortran symbols), as Debian's
 * libscalapack-openmpi exports them; no header ships with them. */
extern void Cblacs_pinfo(int *mypnum, int *nprocs);
extern void Cblacs_get(int ctxt, int what, int *val);
extern void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
extern void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
extern void Cblacs_gridexit(int ctxt);
extern int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc,
                   const int *nprocs);
extern void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
                      const int *irsrc, const int *icsrc, const int *ictxt, const int *lld,
                      int *info);
extern void pspotrf_(const char *uplo, const int *n, float *a, const int *ia, const int *ja,
                     const int *desca, int *info);

static int world_rank = 0;

static void die(const char *msg) {
    fprintf(stderr, "pspotrf_bench: rank %d: %s\n", world_rank, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* A mapped `.npy`: its data, square extent and order. */
struct npy {
    const unsigned char *map;
    size_t len;
    const float *data;
    long n;
    int fortran;
};

/* Maps PATH and parses its header: a 2-D square little-endian float32 array
 * (format 1.0, 2.0 or 3.0). Dies with the reason otherwise. */
static struct npy npy_open(const char *path) {
    struct npy f;
    char err[512];
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(err, sizeof err, "cannot open %s: %s", path, strerror(errno));
        die(err);
    }
    struct stat st;
    if (fstat(fd, &st) != 0) die("cannot stat the input");
    f.len = (size_t)st.st_size;
    f.map = mmap(NULL, f.len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (f.map == MAP_FAILED) die("cannot map the input");
    if (f.len < 12 || memcmp(f.map, "\x93NUMPY", 6) != 0) die("the input is not a .npy file");
    size_t hlen, hstart;
    if (f.map[6] == 1) {
        hlen = f.map[8] | (f.map[9] << 8);
        hstart = 10;
    } else {
        hlen = f.map[8] | (f.map[9] << 8) | ((size_t)f.map[10] << 16) | ((size_t)f.map[11] << 24);
        hstart = 12;
    }
    if (hstart + hlen > f.len) die("truncated .npy header");
    char *h = malloc(hlen + 1);
    memcpy(h, f.map + hstart, hlen);
    h[hlen] = 0;
    if (!strstr(h, "'<f4'")) die("the input's dtype is not '<f4' (little-endian float32)");
    f.fortran = strstr(h, "'fortran_order': True") != NULL;
    const char *s = strstr(h, "'shape': (");
    long r, c;
    if (!s || sscanf(s, "'shape': (%ld, %ld)", &r, &c) != 2) die("the input is not 2-D");
    if (r != c) die("the input is not square");
    free(h);
    f.n = r;
    if (hstart + hlen + (size_t)r * (size_t)c * 4 > f.len) die("truncated .npy data");
    f.data = (const float *)(f.map + hstart + hlen);
    return f;
}

/* Global index (0-based) of local index L (0-based) in a block-cyclic
 * dimension of NB blocks over NP processes, this process being number P
 * (the distribution starting at process 0). */
static long l2g(long l, int nb, int p, int np) {
    return (l / nb * np + p) * nb + l % nb;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Writes the factor in LOCAL (leading dimension LLD, LR x LC) into one
 * Fortran-order N x N `.npy` at PATH: rank 0 makes the file and its header,
 * then every rank writes its own column pieces (zeros above the diagonal). */
static void write_factor(const char *path, const float *local, int lld, int lr, int lc, long n,
                         int nb, int myrow, int mycol, int nprow, int npcol) {
    char hdr[128];
    int len = snprintf(hdr, sizeof hdr,
                       "{'descr': '<f4', 'fortran_order': True, 'shape': (%ld, %ld), }", n, n);
    int total = 10 + len + 1;
    int pad = (64 - total % 64) % 64;
    long hsize = total + pad;
    if (world_rank == 0) {
        FILE *f = fopen(path, "wb");
        if (!f) die("cannot create the --out file");
        unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0};
        pre[8] = (unsigned char)((hsize - 10) & 0xff);
        pre[9] = (unsigned char)((hsize - 10) >> 8);
        fwrite(pre, 1, 10, f);
        fwrite(hdr, 1, len, f);
        for (int i = 0; i < pad; i++) fputc(' ', f);
        fputc('\n', f);
        if (ftruncate(fileno(f), hsize + n * n * 4) != 0) die("cannot size the --out file");
        fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int fd = open(path, O_WRONLY);
    if (fd < 0) die("cannot open the --out file");
    float *piece = malloc(sizeof(float) * nb);
    for (int jl = 0; jl < lc; jl++) {
        long j = l2g(jl, nb, mycol, npcol);
        for (int il0 = 0; il0 < lr; il0 += nb) {
            int len_rows = lr - il0 < nb ? lr - il0 : nb;
            long i0 = l2g(il0, nb, myrow, nprow);
            for (int k = 0; k < len_rows; k++)
                piece[k] = i0 + k >= j ? local[il0 + k + (long)jl * lld] : 0.0f;
            off_t at = hsize + (j * n + i0) * 4;
            if (pwrite(fd, piece, sizeof(float) * len_rows, at) != (ssize_t)(sizeof(float) * len_rows))
                die("cannot write the --out file");
        }
    }
    free(piece);
    close(fd);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void usage(void) {
    if (world_rank == 0)
        fprintf(stderr, "usage: mpirun -np P*Q pspotrf_bench --npy A.npy --nb NB --grid PxQ "
                        "[--runs R] [--out L.npy]\n");
    MPI_Finalize();
    exit(2);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    int world_size;
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);

    const char *npy_path = NULL, *out_path = NULL;
    int nb = 0, nprow = 0, npcol = 0, runs = 3;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--npy") && a + 1 < argc) npy_path = argv[++a];
        else if (!strcmp(argv[a], "--out") && a + 1 < argc) out_path = argv[++a];
        else if (!strcmp(argv[a], "--nb") && a + 1 < argc) nb = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--runs") && a + 1 < argc) runs = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--grid") && a + 1 < argc) {
            if (sscanf(argv[++a], "%dx%d", &nprow, &npcol) != 2) usage();
        } else usage();
    }
    if (!npy_path || nb <= 0 || nprow <= 0 || npcol <= 0 || runs <= 0) usage();
    if (nprow * npcol != world_size) {
        if (world_rank == 0)
            fprintf(stderr, "pspotrf_bench: the grid %dx%d needs %d processes, not %d\n", nprow,
                    npcol, nprow * npcol, world_size);
        MPI_Finalize();
        return 2;
    }

    struct npy in = npy_open(npy_path);
    int n = (int)in.n;

    int me, np, ctxt, myrow, mycol, pr, pc;
    Cblacs_pinfo(&me, &np);
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", nprow, npcol);
    Cblacs_gridinfo(ctxt, &pr, &pc, &myrow, &mycol);
    if (myrow != world_rank / npcol || mycol != world_rank % npcol)
        die("the BLACS grid is not row-major in MPI rank order");

    int zero = 0, one = 1, info = 0;
    int lr = numroc_(&n, &nb, &myrow, &zero, &nprow);
    int lc = numroc_(&n, &nb, &mycol, &zero, &npcol);
    int lld = lr > 1 ? lr : 1;
    int desc[9];
    descinit_(desc, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
    if (info != 0) die("descinit_ failed");

    size_t count = (size_t)lld * (size_t)(lc > 0 ? lc : 1);
    float *pristine = malloc(sizeof(float) * count);
    float *work = malloc(sizeof(float) * count);
    if (!pristine || !work) die("out of memory for the local matrix");
    for (int jl = 0; jl < lc; jl++) {
        long j = l2g(jl, nb, mycol, npcol);
        for (int il = 0; il < lr; il++) {
            long i = l2g(il, nb, myrow, nprow);
            pristine[il + (size_t)jl * lld] =
                in.fortran ? in.data[i + j * (long)n] : in.data[i * (long)n + j];
        }
    }
    munmap((void *)in.map, in.len);

    double *times = malloc(sizeof(double) * runs);
    for (int r = 0; r < runs; r++) {
        memcpy(work, pristine, sizeof(float) * count);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        pspotrf_("L", &n, work, &one, &one, desc, &info);
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime() - t0;
        int bad = info != 0, any = 0;
        MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (any) {
            /* INFO > 0: the leading minor of that order is not positive definite;
             * INFO < 0: an argument was wrong. Each rank that saw it says so. */
            if (info != 0)
                fprintf(stderr, "pspotrf_bench: rank %d: pspotrf_ INFO = %d%s\n", world_rank,
                        info, info > 0 ? " (the matrix is not positive definite)" : "");
            fflush(stderr);
            MPI_Barrier(MPI_COMM_WORLD);
            if (world_rank == 0) MPI_Abort(MPI_COMM_WORLD, 1);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        times[r] = t;
        if (world_rank == 0) printf("pspotrf run %d: %.4f s\n", r + 1, t), fflush(stdout);
    }
    qsort(times, runs, sizeof(double), cmp_double);
    double median = runs % 2 ? times[runs / 2] : (times[runs / 2 - 1] + times[runs / 2]) / 2;
    if (world_rank == 0)
        printf("pspotrf median: %.4f s (N=%d NB=%d grid %dx%d, %d runs, %.2f GFLOP/s)\n", median,
               n, nb, nprow, npcol, runs, (double)n * n * n / 3.0 / median / 1e9);

    if (out_path)
        write_factor(out_path, work, lld, lr, lc, n, nb, myrow, mycol, nprow, npcol);

    free(times);
    free(work);
    free(pristine);
    Cblacs_gridexit(ctxt);
    MPI_Finalize();
    return 0;
}
