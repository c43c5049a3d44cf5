/* tray-reader: the decoder's onnxruntime custom operators (domain "tray_reader").
 *
 * NormSnakeQuantize(x, scale, bias, alpha, inverse, y_scale, y_zero_point) -> y
 *   x             float [N, C, T]
 *   scale, bias   float [C]        the instance norm's (1 + gamma, beta: the AdaIN)
 *   alpha, inverse float [C]       the snake's alpha and 1 / alpha
 *   y_scale       float scalar     QuantizeLinear's scale
 *   y_zero_point  uint8 scalar     QuantizeLinear's zero point
 *   attribute epsilon (float)      the instance norm's
 *   y             uint8 [N, C, T]
 *
 *   h = scale[c] * (x - mean_t x) / sqrt(var_t x + epsilon) + bias[c]
 *   s = h + inverse[c] * sin(alpha[c] * h)^2
 *   y = saturate(round_half_even(s / y_scale) + y_zero_point)
 *
 * In the graph these are InstanceNormalization, the snake's Mul/Sin/Pow/Mul/Add and a
 * QuantizeLinear: about a dozen passes over the tensor, each run on one core by
 * onnxruntime. Here each channel's row is read twice for its mean and variance (it stays
 * in the cache) and once more for the result, and the rows are shared out over
 * onnxruntime's threads.
 *
 * DequantizeNormSnakeQuantize(q, q_scale, q_zero_point, scale, bias, alpha, inverse,
 *                             y_scale, y_zero_point) -> y
 *   NormSnakeQuantize(DequantizeLinear(q, q_scale, q_zero_point), ...): q uint8 [N, C, T]
 *   (the convolution before it), q_scale float and q_zero_point uint8 scalars.
 *
 * DequantizeAddNormSnakeQuantize(q, q_scale, q_zero_point, residual, scale, bias, alpha,
 *                                inverse, y_scale, y_zero_point) -> (sum, y)
 *   sum = DequantizeLinear(q, q_scale, q_zero_point) + residual   float [N, C, T]
 *   y = NormSnakeQuantize(sum, ...)
 *   (a resblock's skip connection and the next activation).
 *
 *   In the graph the dequantised tensor is written out whole and read back; here each row
 *   is dequantised into a buffer that stays in the cache. The values are DequantizeLinear's
 *   and Add's, rounding for rounding ((float)(q - zero) * scale, stored before anything
 *   adds to it), so the results are those of the three nodes.
 *
 * Stft(signal, window) -> y
 *   signal        float [B, L] or [B, L, 1]   a real signal
 *   window        float [N]
 *   attributes frame_step (int), frame_length (int, = N)
 *   y             float [B, F, N / 2 + 1, 2]  F = floor((L - N) / frame_step) + 1
 *
 *   onnxruntime's STFT (onesided, real signal) to the bit: see the Stft section below.
 *
 * The library talks to onnxruntime through its C API, a table of function pointers that
 * only ever grows: the entries used here are looked up by their position in version 1 of
 * that table (API_* below; KernelContext_ParallelFor is in version 20), and the operators
 * are declared as version 8 OrtCustomOps (the first with all the fields onnxruntime now
 * reads). So no onnxruntime header is needed to build it; the tests run the
 * NormSnakeQuantize operators against the same arithmetic in NumPy and in onnxruntime's
 * own nodes, and Stft against onnxruntime's STFT.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct OrtStatus OrtStatus;
typedef struct {
    const void *(*GetApi)(uint32_t version);
    const char *(*GetVersionString)(void);
} OrtApiBase;

/* Positions in OrtApi (version 1). */
enum {
    API_CREATE_CUSTOM_OP_DOMAIN = 26,
    API_CUSTOM_OP_DOMAIN_ADD = 27,
    API_ADD_CUSTOM_OP_DOMAIN = 28,
    API_GET_TENSOR_MUTABLE_DATA = 51,
    API_GET_DIMENSIONS_COUNT = 61,
    API_GET_DIMENSIONS = 62,
    API_GET_TENSOR_TYPE_AND_SHAPE = 65,
    API_KERNEL_INFO_GET_ATTRIBUTE_FLOAT = 85,
    API_KERNEL_INFO_GET_ATTRIBUTE_INT64 = 86,
    API_KERNEL_CONTEXT_GET_INPUT = 90,
    API_KERNEL_CONTEXT_GET_OUTPUT = 91,
    API_RELEASE_STATUS = 93,
    API_RELEASE_TENSOR_TYPE_AND_SHAPE_INFO = 99,
};
/* In version 20 of the table (and later ones): runs a function over a range on the
 * session's own threads. */
#define API_KERNEL_CONTEXT_PARALLEL_FOR 274

enum { TYPE_FLOAT = 1, TYPE_UINT8 = 2 };
#define MAX_INPUTS 10
#define MAX_DIMS 8

static void *const *api;
static void *const *api_20; /* the same table, if onnxruntime has version 20; else NULL */
#define CALL(index, type, ...) (((type)api[index])(__VA_ARGS__))

typedef OrtStatus *(*status_fn_ptr_ptr)(const void *, void **);
typedef OrtStatus *(*status_fn_str_ptr)(const char *, void **);
typedef OrtStatus *(*status_fn_ptr_cptr)(void *, const void *);
typedef OrtStatus *(*status_fn_size)(const void *, size_t *);
typedef OrtStatus *(*status_fn_dims)(const void *, int64_t *, size_t);
typedef OrtStatus *(*status_fn_attr_float)(const void *, const char *, float *);
typedef OrtStatus *(*status_fn_attr_int)(const void *, const char *, int64_t *);
typedef OrtStatus *(*status_fn_input)(const void *, size_t, const void **);
typedef OrtStatus *(*status_fn_output)(void *, size_t, const int64_t *, size_t, void **);
typedef OrtStatus *(*status_fn_parallel)(const void *, void (*)(void *, size_t), size_t, size_t, void *);
typedef void (*release_fn)(void *);

/* Runs of either operator that could not be computed (see their compute functions): for
 * tests and debugging. */
static long failed_runs; /* updated atomically: sessions may run on several threads */

long tray_reader_op_failures(void) { return __atomic_load_n(&failed_runs, __ATOMIC_RELAXED); }

/* --- the arithmetic ---------------------------------------------------------------- */

typedef float floats8 __attribute__((vector_size(32)));

/* sin(pi r)^2 for |r| <= 1/2: Taylor to the 11th power of pi r (error < 6e-8). */
static inline __attribute__((always_inline)) float sin2_pi(float r) {
    const float t = 3.14159265358979f * r, t2 = t * t;
    float p = -2.50521084e-8f * t2 + 2.75573192e-6f;
    p = p * t2 - 1.98412698e-4f;
    p = p * t2 + 8.33333333e-3f;
    p = p * t2 - 1.66666667e-1f;
    const float s = t + t * t2 * p;
    return s * s;
}

/* Round to the nearest integer, ties to even (as QuantizeLinear does), for |v| < 2^22:
 * adding and taking away 1.5 * 2^23 leaves no fraction bits. Unlike rintf, this
 * vectorises without relaxing any floating-point rule. */
static inline __attribute__((always_inline)) float round_even(float v) {
    return (v + 12582912.0f) - 12582912.0f;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define VECTOR_CLONES
#endif

#define TILE 256
#define BLOCK 1024

/* Sums over x[0..n) of x - center (``square`` 0) or of (x - center)^2 (``square`` 1): in
 * float vectors within blocks, in double across them. A plain running sum has a strict
 * order of additions, which the compiler keeps: one scalar add at a time. */

static inline __attribute__((always_inline)) double sum_of(const float *x, size_t n, float center, int square) {
    double total = 0.0;
    for (size_t start = 0; start < n; start += BLOCK) {
        const size_t end = start + BLOCK < n ? start + BLOCK : n;
        floats8 acc0 = {0}, acc1 = {0};
        size_t t = start;
        for (; t + 16 <= end; t += 16) {
            floats8 v0, v1;
            memcpy(&v0, x + t, sizeof v0);
            memcpy(&v1, x + t + 8, sizeof v1);
            v0 -= center;
            v1 -= center;
            acc0 += square ? v0 * v0 : v0;
            acc1 += square ? v1 * v1 : v1;
        }
        float rest = 0.0f;
        for (; t < end; t++) rest += square ? (x[t] - center) * (x[t] - center) : x[t] - center;
        const floats8 acc = acc0 + acc1;
        for (int j = 0; j < 8; j++) total += acc[j];
        total += rest;
    }
    return total;
}

/* One channel's row: mean and variance (two passes over a row that stays in the cache),
 * then the result. */
VECTOR_CLONES
static void norm_snake_row(const float *x, size_t n, float scale, float bias, float alpha, float inverse,
                           float epsilon, float y_scale, float zero, uint8_t *y) {
    const double mean = n ? sum_of(x, n, 0.0f, 0) / (double)n : 0.0;
    const double var = n ? sum_of(x, n, (float)mean, 1) / (double)n : 0.0;
    const float a = (float)(scale / sqrt(var + epsilon));
    const float b = (float)(bias - mean * a);
    const float turns = alpha * 0.318309886183791f; /* alpha / pi: sin(alpha h) = sin(pi u) */
    const float ua = a * turns, ub = b * turns;
    const float to_steps = 1.0f / y_scale;
    /* In tiles: the arithmetic runs on whole float vectors, and the narrowing to bytes
     * after it (together, the compiler ran out of vector registers: 2x the time). */
    float q[TILE];
    for (size_t start = 0; start < n; start += TILE) {
        const size_t len = n - start < TILE ? n - start : TILE;
        const float *xs = x + start;
        for (size_t t = 0; t < len; t++) {
            const float h = a * xs[t] + b, u = ua * xs[t] + ub;
            const float v = (h + inverse * sin2_pi(u - round_even(u))) * to_steps + zero;
            q[t] = round_even(v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v));
        }
        for (size_t t = 0; t < len; t++) y[start + t] = (uint8_t)(int32_t)q[t];
    }
}

/* DequantizeLinear's arithmetic, each value stored (so rounded to float) before anything
 * adds to it: the compiler may not fuse the product into a later sum. */
VECTOR_CLONES
static void dequantize(const uint8_t *q, float scale, int32_t zero, size_t n, float *x) {
    for (size_t t = 0; t < n; t++) x[t] = (float)((int32_t)q[t] - zero) * scale;
}

VECTOR_CLONES
static void add_into(float *x, const float *residual, size_t n) {
    for (size_t t = 0; t < n; t++) x[t] += residual[t];
}

/* One row's dequantised values, per thread (onnxruntime's threads live as long as the
 * session; the buffer grows to the longest row and stays). */
static __thread float *row_buffer;
static __thread size_t row_buffer_size;

static float *row_scratch(size_t n) {
    if (n > row_buffer_size) {
        float *grown = realloc(row_buffer, n * sizeof *grown);
        if (!grown) return NULL;
        row_buffer = grown;
        row_buffer_size = n;
    }
    return row_buffer;
}

/* --- the NormSnakeQuantize operators ------------------------------------------------ */

enum { PLAIN = 0, DEQUANTIZE = 1, DEQUANTIZE_ADD = 2 };
/* Inputs before the norm's scale: x | q, q_scale, q_zero_point | ..., residual. */
static const size_t LEAD[3] = {1, 3, 4};

typedef struct {
    int kind;
    float epsilon;
} Kernel;

static int dims_of(const void *value, int64_t *dims, size_t *count) {
    void *info = NULL;
    int ok = CALL(API_GET_TENSOR_TYPE_AND_SHAPE, status_fn_ptr_ptr, value, &info) == NULL;
    ok = ok && CALL(API_GET_DIMENSIONS_COUNT, status_fn_size, info, count) == NULL && *count <= MAX_DIMS;
    ok = ok && CALL(API_GET_DIMENSIONS, status_fn_dims, info, dims, *count) == NULL;
    if (info) CALL(API_RELEASE_TENSOR_TYPE_AND_SHAPE_INFO, release_fn, info);
    return ok;
}

static int64_t elements(const int64_t *dims, size_t count) {
    int64_t n = 1;
    for (size_t i = 0; i < count; i++) n *= dims[i];
    return n;
}

static void count_failure(void) { __atomic_fetch_add(&failed_runs, 1, __ATOMIC_RELAXED); }

/* Input ``i``'s shape and data: 0 if onnxruntime did not give them. */
static int read_input(void *context, size_t i, int64_t *dims, size_t *ndims, void **data) {
    const void *value = NULL;
    return CALL(API_KERNEL_CONTEXT_GET_INPUT, status_fn_input, context, i, &value) == NULL && value &&
           dims_of(value, dims, ndims) && CALL(API_GET_TENSOR_MUTABLE_DATA, status_fn_ptr_ptr, value, data) == NULL;
}

/* Output ``i``, made with this shape: 0 if onnxruntime did not make it. ``data`` may be
 * NULL for an output with no elements. */
static int make_output(void *context, size_t i, const int64_t *dims, size_t ndims, void **data) {
    void *out = NULL;
    *data = NULL;
    return CALL(API_KERNEL_CONTEXT_GET_OUTPUT, status_fn_output, context, i, dims, ndims, &out) == NULL && out &&
           CALL(API_GET_TENSOR_MUTABLE_DATA, status_fn_ptr_ptr, out, data) == NULL;
}

/* One run's work, shared out by rows. */
typedef struct {
    int kind;
    const void *x; /* float, or uint8 to dequantise */
    float x_scale;
    int32_t x_zero;
    const float *residual, *scale, *bias, *alpha, *inverse;
    float *sum;
    uint8_t *y;
    float epsilon, y_scale, zero;
    size_t channels, steps;
} Rows;

static void one_row(void *data, size_t i) {
    const Rows *r = data;
    const size_t c = i % r->channels, at = i * r->steps;
    const float *x = (const float *)r->x + at;
    if (r->kind != PLAIN) {
        float *row = r->kind == DEQUANTIZE_ADD ? r->sum + at : row_scratch(r->steps);
        if (!row) { /* no memory for a row buffer: this row is silence, and counted */
            count_failure();
            memset(r->y + at, (int)r->zero, r->steps);
            return;
        }
        dequantize((const uint8_t *)r->x + at, r->x_scale, r->x_zero, r->steps, row);
        if (r->kind == DEQUANTIZE_ADD) add_into(row, r->residual + at, r->steps);
        x = row;
    }
    norm_snake_row(x, r->steps, r->scale[c], r->bias[c], r->alpha[c], r->inverse[c], r->epsilon, r->y_scale, r->zero,
                   r->y + at);
}

/* Batches of rows per run: more than the threads, so a thread slowed by a neighbour
 * does not hold the others up. */
#define ROW_BATCHES 4

static void compute(void *kernel, void *context) {
    const Kernel *k = kernel;
    const size_t lead = LEAD[k->kind], n_inputs = lead + 6, y_at = k->kind == DEQUANTIZE_ADD;
    int64_t dims[MAX_INPUTS][MAX_DIMS];
    size_t ndims[MAX_INPUTS];
    void *data[MAX_INPUTS];
    int ok = 1;
    for (size_t i = 0; i < n_inputs && ok; i++) ok = read_input(context, i, dims[i], &ndims[i], &data[i]);
    uint8_t *y = NULL;
    float *sum = NULL;
    if (!ok || !make_output(context, y_at, dims[0], ndims[0], (void **)&y) || !y ||
        (y_at && (!make_output(context, 0, dims[0], ndims[0], (void **)&sum) || !sum))) {
        count_failure(); /* onnxruntime itself failed us: nothing more can be done */
        return;
    }
    const int64_t batch = ndims[0] == 3 ? dims[0][0] : 0, channels = ndims[0] == 3 ? dims[0][1] : 0;
    const int64_t steps = ndims[0] == 3 ? dims[0][2] : 0;
    const size_t y_scale = lead + 4, y_zero = lead + 5;
    ok = ndims[0] == 3 && elements(dims[y_scale], ndims[y_scale]) == 1 && elements(dims[y_zero], ndims[y_zero]) == 1;
    for (size_t i = lead; i < lead + 4; i++) ok = ok && elements(dims[i], ndims[i]) == channels;
    if (k->kind != PLAIN) ok = ok && elements(dims[1], ndims[1]) == 1 && elements(dims[2], ndims[2]) == 1;
    if (k->kind == DEQUANTIZE_ADD) {
        ok = ok && ndims[3] == 3;
        for (size_t d = 0; ok && d < 3; d++) ok = dims[3][d] == dims[0][d];
    }
    const uint8_t zero_point = elements(dims[y_zero], ndims[y_zero]) >= 1 ? *(const uint8_t *)data[y_zero] : 0;
    if (!ok) {
        /* Inputs that do not fit (the graph rewrites never make such a node). A version 8
         * kernel cannot fail a run, and a missing output would reach the next node: the
         * output is the zero point (silence), a sum zeros, and the failure is counted. */
        count_failure();
        const size_t n = (size_t)elements(dims[0], ndims[0]);
        memset(y, zero_point, n);
        if (sum) memset(sum, 0, n * sizeof *sum);
        return;
    }
    Rows rows = {k->kind, data[0], 0.0f, 0, NULL, data[lead], data[lead + 1], data[lead + 2], data[lead + 3], sum, y,
                 k->epsilon, *(const float *)data[y_scale], (float)zero_point, (size_t)channels, (size_t)steps};
    if (k->kind != PLAIN) {
        rows.x_scale = *(const float *)data[1];
        rows.x_zero = *(const uint8_t *)data[2];
        rows.residual = k->kind == DEQUANTIZE_ADD ? data[3] : NULL;
    }
    const size_t total = (size_t)(batch * channels);
    OrtStatus *status = NULL;
    if (api_20)
        status = ((status_fn_parallel)api_20[API_KERNEL_CONTEXT_PARALLEL_FOR])(context, one_row, total, ROW_BATCHES, &rows);
    if (!api_20 || status) { /* an older onnxruntime, or it could not: on this thread */
        if (status) CALL(API_RELEASE_STATUS, release_fn, status);
        for (size_t i = 0; i < total; i++) one_row(&rows, i);
    }
}

/* --- Stft: onnxruntime's STFT, rounding for rounding --------------------------------
 *
 * The decoder's harmonic source goes through one STFT (frame length 20, step 5), and the
 * phase of each bin is atan2(im, re). In a fifth of the bins (DC and Nyquist) the
 * imaginary part is what the rounding leaves (|im| < 1e-6), and where the real part is
 * negative the phase is +pi or -pi by its sign. Another way to compute the transform (a
 * Conv of the DFT rows, equal to 1e-6) gave other phases and moved the audio 1.6 dB
 * further from the float model. So this operator computes exactly what onnxruntime's
 * STFT computes.
 *
 * onnxruntime (1.32, its CPU DFT kernels) transforms each frame on its own and, for a
 * length N that is not a power of 2, by Bluestein's algorithm, in float:
 *   chirp[n] = (cosf(t), sinf(t)), t = -pi * n * n / N   (left to right; pi = (float)M_PI)
 *   a[n] = complex(x[n]) * window[n] * chirp[n] for n < N, 0 up to M, the power of 2
 *          >= 2N - 1 (64 for N = 20)
 *   b[n] = conj(chirp[n]) for n < N, b[M - n] = b[n], 0 between
 *   c = IFFT(FFT(a) * FFT(b)),  y[k] = c[k] * chirp[k] for k <= N / 2
 * Its radix-2 FFT uses a table V of (cosf, sinf)(i * -2pi / M) in bit-reversed order,
 * loads the input in bit-reversed order as complex(1, 0) * x * complex(1, 0), and does the
 * butterflies as even + V[first] * odd, even + V[second] * odd. The inverse FFT uses the
 * same table, so its output comes reversed (c[k] is read at M - k), and divides by M.
 * Every complex product is the full (ac - bd, ad + bc). Each product and sum is rounded
 * on its own (no fused multiply-add), so every zero keeps the sign onnxruntime gives it.
 *
 * onnxruntime makes the chirp, V and FFT(b) once per run, then takes one frame at a time,
 * allocating and clearing two buffers for it, in scalar code: ~10 ms per 32-frame decoder
 * window. Here the tables are made once, with the kernel, and 8 frames go through the
 * same operations at once, one per vector lane (a lane rounds as the scalar code does):
 * ~0.6 ms. The tests compare the result bit for bit with onnxruntime's STFT.
 *
 * Not computed (the graph rewrite leaves such nodes to onnxruntime): lengths that are a
 * power of 2 (onnxruntime then runs its FFT on the frame directly, in another order) and
 * lengths over STFT_MAX_LENGTH. Where onnxruntime's arithmetic overflows to infinities,
 * its complex products take a slower path that keeps infinities where this one can give
 * NaN: only for signals near the end of the float range.
 */

#if defined(__clang__)
#pragma clang fp contract(off)
#else
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif

#define STFT_LANES 8
#define STFT_MAX_LENGTH 256
#define STFT_MAX_SIZE 512 /* M for STFT_MAX_LENGTH */

typedef struct {
    int usable;           /* 0: attributes this kernel does not compute (each run fails) */
    int64_t step, length; /* frame_step, frame_length */
    size_t size, bins;    /* M; length / 2 + 1 */
    uint16_t reversed[STFT_MAX_SIZE]; /* i with its log2 M bits reversed */
    float chirp_re[STFT_MAX_LENGTH], chirp_im[STFT_MAX_LENGTH];
    /* Each butterfly's V[first] and V[second]: for the stage of half-size h, at h - 1 + j
     * for its j-th butterfly (j < h). */
    float first_re[STFT_MAX_SIZE], first_im[STFT_MAX_SIZE], second_re[STFT_MAX_SIZE], second_im[STFT_MAX_SIZE];
    float b_re[STFT_MAX_SIZE], b_im[STFT_MAX_SIZE]; /* FFT(b) */
} StftKernel;

static uint32_t bit_reverse(uint32_t v, unsigned bits) {
    uint32_t r = 0;
    for (unsigned i = 0; i < bits; i++) r |= ((v >> i) & 1u) << (bits - 1 - i);
    return r;
}

/* Loads v as complex(1, 0) * v * complex(1, 0), full products as onnxruntime's FFT does
 * (they can change the sign of a zero, nothing else). */
static inline __attribute__((always_inline)) void load_unit(floats8 *re, floats8 *im, const floats8 *vr,
                                                            const floats8 *vi) {
    const float one = 1.0f, zero = 0.0f;
    const floats8 r = one * *vr - zero * *vi, i = one * *vi + zero * *vr;
    *re = r * one - i * zero;
    *im = r * zero + i * one;
}

/* onnxruntime's radix-2 FFT of x (M points, natural order) into y; x is left as it was. */
static inline __attribute__((always_inline)) void fft(const StftKernel *k, const floats8 *xr, const floats8 *xi,
                                                      floats8 *yr, floats8 *yi) {
    const size_t m = k->size;
    for (size_t i = 0; i < m; i++) load_unit(&yr[i], &yi[i], &xr[k->reversed[i]], &xi[k->reversed[i]]);
    for (size_t half = 1; half < m; half <<= 1) {
        for (size_t j = 0; j < half; j++) {
            const float fr = k->first_re[half - 1 + j], fi = k->first_im[half - 1 + j];
            const float sr = k->second_re[half - 1 + j], si = k->second_im[half - 1 + j];
            for (size_t e = j; e < m; e += 2 * half) {
                const size_t o = e + half;
                const floats8 er = yr[e], ei = yi[e], or_ = yr[o], oi = yi[o];
                yr[e] = er + (fr * or_ - fi * oi);
                yi[e] = ei + (fr * oi + fi * or_);
                yr[o] = er + (sr * or_ - si * oi);
                yi[o] = ei + (sr * oi + si * or_);
            }
        }
    }
}

/* All frames of one signal: ``work`` holds 4 * M vectors. */
VECTOR_CLONES
static void stft_frames(const StftKernel *k, const float *x, const float *window, int64_t frames, float *y,
                        floats8 *work) {
    const size_t m = k->size, length = (size_t)k->length, bins = k->bins, step = (size_t)k->step;
    floats8 *ar = work, *ai = work + m, *fr = work + 2 * m, *fi = work + 3 * m;
    const float size = (float)m;
    for (int64_t f0 = 0; f0 < frames; f0 += STFT_LANES) {
        const int lanes = frames - f0 < STFT_LANES ? (int)(frames - f0) : STFT_LANES;
        const float *frame = x + (size_t)f0 * step;
        /* a = complex(x) * window * chirp: complex(x) has +0 for its imaginary part. */
        for (size_t n = 0; n < length; n++) {
            floats8 v = {0};
            for (int l = 0; l < lanes; l++) v[l] = frame[(size_t)l * step + n];
            const float w = window[n], wi = 0.0f * w, cr = k->chirp_re[n], ci = k->chirp_im[n];
            const floats8 wr = v * w;
            ar[n] = wr * cr - wi * ci;
            ai[n] = wr * ci + wi * cr;
        }
        for (size_t n = length; n < m; n++) ar[n] = ai[n] = (floats8){0};
        fft(k, ar, ai, fr, fi);
        for (size_t i = 0; i < m; i++) {
            const floats8 r = fr[i], im = fi[i];
            fr[i] = r * k->b_re[i] - im * k->b_im[i];
            fi[i] = r * k->b_im[i] + im * k->b_re[i];
        }
        fft(k, fr, fi, ar, ai); /* the inverse: the same table, so c[b] is at M - b */
        for (size_t b = 0; b < bins; b++) {
            const size_t at = b ? m - b : 0;
            const floats8 cr = ar[at] / size, ci = ai[at] / size;
            const floats8 re = cr * k->chirp_re[b] - ci * k->chirp_im[b];
            const floats8 im = cr * k->chirp_im[b] + ci * k->chirp_re[b];
            for (int l = 0; l < lanes; l++) {
                float *out = y + (((size_t)f0 + (size_t)l) * bins + b) * 2;
                out[0] = re[l];
                out[1] = im[l];
            }
        }
    }
}

/* FFT(b), computed as a frame's FFT is (in every lane; lane 0 is kept). */
static int stft_b(StftKernel *k) {
    const size_t m = k->size, length = (size_t)k->length;
    floats8 *work = aligned_alloc(sizeof(floats8), 4 * m * sizeof(floats8));
    if (!work) return 0;
    floats8 *br = work, *bi = work + m, *fr = work + 2 * m, *fi = work + 3 * m;
    for (size_t n = 0; n < m; n++) br[n] = bi[n] = (floats8){0};
    for (size_t n = 0; n < length; n++) {
        br[n] = (floats8){0} + k->chirp_re[n];
        bi[n] = (floats8){0} - k->chirp_im[n]; /* conj */
    }
    for (size_t n = m - length + 1; n < m; n++) {
        br[n] = br[m - n];
        bi[n] = bi[m - n];
    }
    fft(k, br, bi, fr, fi);
    for (size_t n = 0; n < m; n++) {
        k->b_re[n] = fr[n][0];
        k->b_im[n] = fi[n][0];
    }
    free(work);
    return 1;
}

/* The chirp, V, the butterflies' twiddles and FFT(b), with onnxruntime's expressions. */
static int stft_tables(StftKernel *k) {
    const size_t length = (size_t)k->length;
    size_t m = 1;
    unsigned bits = 0;
    while (m < 2 * length - 1) m <<= 1, bits++;
    k->size = m;
    const float pi = (float)3.14159265358979323846, tau = 2 * pi;
    for (size_t n = 0; n < length; n++) {
        const float t = -1.0f * pi * (float)n * (float)n / (float)length;
        k->chirp_re[n] = cosf(t);
        k->chirp_im[n] = sinf(t);
    }
    const float velocity = -1.0f * tau / (float)m;
    float v_re[STFT_MAX_SIZE], v_im[STFT_MAX_SIZE];
    for (size_t i = 0; i < m; i++) {
        const float angle = (float)i * velocity;
        const uint32_t at = bit_reverse((uint32_t)i, bits);
        v_re[at] = cosf(angle);
        v_im[at] = sinf(angle);
        k->reversed[i] = (uint16_t)at;
    }
    unsigned stage_bits = 0;
    for (size_t half = 1; half < m; half <<= 1) {
        stage_bits++;
        for (size_t j = 0; j < half; j++) {
            const uint32_t first = bit_reverse((uint32_t)j, stage_bits);
            const uint32_t second = bit_reverse((uint32_t)(half + j), stage_bits);
            k->first_re[half - 1 + j] = v_re[first];
            k->first_im[half - 1 + j] = v_im[first];
            k->second_re[half - 1 + j] = v_re[second];
            k->second_im[half - 1 + j] = v_im[second];
        }
    }
    return stft_b(k);
}

#if defined(__clang__)
#pragma clang fp contract(on)
#else
#pragma GCC pop_options
#endif

static int is_power_of_2(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

static void *stft_create_kernel(const void *op, const void *ort_api, const void *info) {
    (void)op;
    (void)ort_api;
    StftKernel *k = calloc(1, sizeof *k);
    if (!k) return NULL;
    OrtStatus *status = CALL(API_KERNEL_INFO_GET_ATTRIBUTE_INT64, status_fn_attr_int, info, "frame_step", &k->step);
    if (status) CALL(API_RELEASE_STATUS, release_fn, status);
    status = CALL(API_KERNEL_INFO_GET_ATTRIBUTE_INT64, status_fn_attr_int, info, "frame_length", &k->length);
    if (status) CALL(API_RELEASE_STATUS, release_fn, status);
    const int fits = k->length >= 3 && k->length <= STFT_MAX_LENGTH && !is_power_of_2(k->length);
    k->bins = fits ? (size_t)k->length / 2 + 1 : 1;
    k->usable = fits && k->step >= 1 && stft_tables(k);
    return k;
}

/* Frames of a signal of ``len`` samples, as onnxruntime counts them (in float). */
static int64_t stft_frame_count(const StftKernel *k, int64_t len) {
    if (!k->usable || len < k->length) return 0;
    return (int64_t)floorf((float)(len - k->length) / (float)k->step) + 1;
}

static void stft_compute(void *kernel, void *context) {
    static const StftKernel unusable; /* for a kernel that could not be made */
    const StftKernel *k = kernel ? kernel : &unusable;
    int64_t dims[2][MAX_DIMS];
    size_t ndims[2];
    void *data[2];
    if (!read_input(context, 0, dims[0], &ndims[0], &data[0]) || !read_input(context, 1, dims[1], &ndims[1], &data[1])) {
        count_failure(); /* onnxruntime itself failed us: nothing more can be done */
        return;
    }
    const int64_t batch = ndims[0] >= 1 ? dims[0][0] : 0, len = ndims[0] >= 2 ? dims[0][1] : 0;
    const int64_t frames = stft_frame_count(k, len), bins = (int64_t)k->bins;
    const int64_t out_dims[4] = {batch, frames, bins, 2};
    float *y = NULL;
    if (!make_output(context, 0, out_dims, 4, (void **)&y) || (!y && batch * frames > 0)) {
        count_failure();
        return;
    }
    const size_t out_size = (size_t)(batch * frames * bins * 2);
    /* A real signal [B, L] or [B, L, 1], the window the kernel was made for, and every
     * frame inside the signal (the float frame count could overshoot past 2^24 samples). */
    const int ok = k->usable && (ndims[0] == 2 || (ndims[0] == 3 && dims[0][2] == 1)) && ndims[1] == 1 &&
                   dims[1][0] == k->length && frames >= 1 && (frames - 1) * k->step + k->length <= len;
    floats8 *work = ok ? aligned_alloc(sizeof(floats8), 4 * k->size * sizeof(floats8)) : NULL;
    if (!work) {
        /* As for NormSnakeQuantize: the output is silence, and the failure is counted. */
        count_failure();
        if (y) memset(y, 0, out_size * sizeof(float));
        return;
    }
    const float *x = data[0], *window = data[1];
    for (int64_t b = 0; b < batch; b++)
        stft_frames(k, x + (size_t)(b * len), window, frames, y + (size_t)(b * frames * bins * 2), work);
    free(work);
}

/* --- the OrtCustomOp (version 8) --------------------------------------------------- */

typedef struct {
    uint32_t version;
    void *(*CreateKernel)(const void *op, const void *api, const void *info);
    const char *(*GetName)(const void *op);
    const char *(*GetExecutionProviderType)(const void *op);
    int (*GetInputType)(const void *op, size_t index);
    size_t (*GetInputTypeCount)(const void *op);
    int (*GetOutputType)(const void *op, size_t index);
    size_t (*GetOutputTypeCount)(const void *op);
    void (*KernelCompute)(void *kernel, void *context);
    void (*KernelDestroy)(void *kernel);
    int (*GetInputCharacteristic)(const void *op, size_t index);  /* version 8 */
    int (*GetOutputCharacteristic)(const void *op, size_t index); /* version 8 */
} CustomOp;

/* A NormSnakeQuantize operator: the OrtCustomOp first, so onnxruntime's pointer to it is
 * one to this. */
typedef struct {
    CustomOp op;
    int kind;
    const char *name;
} NormSnakeOp;

static int kind_of(const void *op) { return ((const NormSnakeOp *)op)->kind; }

static void *create_kernel(const void *op, const void *ort_api, const void *info) {
    (void)ort_api;
    Kernel *k = malloc(sizeof *k);
    if (!k) return NULL;
    k->kind = kind_of(op);
    k->epsilon = 1e-5f;
    OrtStatus *status = CALL(API_KERNEL_INFO_GET_ATTRIBUTE_FLOAT, status_fn_attr_float, info, "epsilon", &k->epsilon);
    if (status) CALL(API_RELEASE_STATUS, release_fn, status);
    return k;
}

static const char *op_name(const void *op) { return ((const NormSnakeOp *)op)->name; }
static const char *op_provider(const void *op) { (void)op; return "CPUExecutionProvider"; }
static int input_type(const void *op, size_t index) {
    const int kind = kind_of(op);
    const int byte = index == LEAD[kind] + 5 || (kind != PLAIN && (index == 0 || index == 2));
    return byte ? TYPE_UINT8 : TYPE_FLOAT;
}
static size_t input_count(const void *op) { return LEAD[kind_of(op)] + 6; }
static int output_type(const void *op, size_t index) {
    return kind_of(op) == DEQUANTIZE_ADD && index == 0 ? TYPE_FLOAT : TYPE_UINT8;
}
static size_t output_count(const void *op) { return kind_of(op) == DEQUANTIZE_ADD ? 2 : 1; }
static size_t one_output(const void *op) { (void)op; return 1; }
static void destroy_kernel(void *kernel) { free(kernel); }
static int required(const void *op, size_t index) { (void)op; (void)index; return 0; /* INPUT_OUTPUT_REQUIRED */ }

#define NORM_SNAKE_OP(kind, name)                                                                               \
    {{8, create_kernel, op_name, op_provider, input_type, input_count, output_type, output_count, compute,           \
      destroy_kernel, required, required},                                                                          \
     kind, name}

static const NormSnakeOp norm_snake_ops[] = {
    NORM_SNAKE_OP(PLAIN, "NormSnakeQuantize"),
    NORM_SNAKE_OP(DEQUANTIZE, "DequantizeNormSnakeQuantize"),
    NORM_SNAKE_OP(DEQUANTIZE_ADD, "DequantizeAddNormSnakeQuantize"),
};

static const char *stft_name(const void *op) { (void)op; return "Stft"; }
static int float_type(const void *op, size_t index) { (void)op; (void)index; return TYPE_FLOAT; }
static size_t stft_input_count(const void *op) { (void)op; return 2; }

static const CustomOp stft_op = {
    8, stft_create_kernel, stft_name, op_provider, float_type, stft_input_count, float_type, one_output, stft_compute,
    destroy_kernel, required, required,
};

#define DOMAIN "tray_reader"

/* Called by onnxruntime (SessionOptions.register_custom_ops_library). */
OrtStatus *RegisterCustomOps(void *options, const OrtApiBase *base) {
    api = (void *const *)base->GetApi(1);
    if (!api) return NULL; /* cannot even make a status: onnxruntime then lacks the op */
    /* Version 20 of the table (onnxruntime 1.20 and later) has KernelContext_ParallelFor;
     * without it the rows run on the calling thread. */
    api_20 = (void *const *)base->GetApi(20);
    void *domain = NULL; /* kept for the life of the process, as sessions may use it */
    OrtStatus *status = CALL(API_CREATE_CUSTOM_OP_DOMAIN, status_fn_str_ptr, DOMAIN, &domain);
    for (size_t i = 0; !status && i < sizeof norm_snake_ops / sizeof norm_snake_ops[0]; i++)
        status = CALL(API_CUSTOM_OP_DOMAIN_ADD, status_fn_ptr_cptr, domain, &norm_snake_ops[i].op);
    if (!status) status = CALL(API_CUSTOM_OP_DOMAIN_ADD, status_fn_ptr_cptr, domain, &stft_op);
    if (!status) status = CALL(API_ADD_CUSTOM_OP_DOMAIN, status_fn_ptr_cptr, options, domain);
    return status;
}
