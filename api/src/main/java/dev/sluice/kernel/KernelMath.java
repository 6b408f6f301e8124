package dev.sluice.kernel;

/**
 * What generated Java kernels call: the language's functions and the integer division it defines, with the meaning
 * the generated CUDA C++ has. The float functions of f32 compute in double and round once, which is within the
 * error bounds CUDA documents for its single-precision functions.
 */
final class KernelMath {

    private KernelMath() {
    }

    // Division by zero gives 0 and the remainder the dividend (a == (a / b) * b + a % b still holds): a GPU has no
    // trap to report it with, and the CUDA code spells out the same values.
    static int div(int a, int b) {
        return b == 0 ? 0 : a / b;
    }

    static int rem(int a, int b) {
        return b == 0 ? a : a % b;
    }

    static long div(long a, long b) {
        return b == 0 ? 0 : a / b;
    }

    static long rem(long a, long b) {
        return b == 0 ? a : a % b;
    }

    static float sqrt(float x) {
        return (float) Math.sqrt(x);
    }

    static double sqrt(double x) {
        return Math.sqrt(x);
    }

    static float exp(float x) {
        return (float) Math.exp(x);
    }

    static double exp(double x) {
        return Math.exp(x);
    }

    static float log(float x) {
        return (float) Math.log(x);
    }

    static double log(double x) {
        return Math.log(x);
    }

    static float sin(float x) {
        return (float) Math.sin(x);
    }

    static double sin(double x) {
        return Math.sin(x);
    }

    static float cos(float x) {
        return (float) Math.cos(x);
    }

    static double cos(double x) {
        return Math.cos(x);
    }

    static float floor(float x) {
        return (float) Math.floor(x);
    }

    static double floor(double x) {
        return Math.floor(x);
    }

    static float ceil(float x) {
        return (float) Math.ceil(x);
    }

    static double ceil(double x) {
        return Math.ceil(x);
    }

    static float pow(float x, float y) {
        return (float) pow((double) x, (double) y);
    }

    // C's pow, which CUDA follows: 1 to any power, and -1 to an infinite one, is 1; Math.pow says NaN for some.
    static double pow(double x, double y) {
        return x == 1 || (x == -1 && Double.isInfinite(y)) ? 1 : Math.pow(x, y);
    }

    static float fma(float a, float b, float c) {
        return Math.fma(a, b, c);
    }

    static double fma(double a, double b, double c) {
        return Math.fma(a, b, c);
    }

    // min and max of floats follow C's fminf/fmaxf: a NaN operand is ignored unless both are NaN; -0 is below +0.
    static float min(float a, float b) {
        return a != a ? b : b != b ? a : Math.min(a, b);
    }

    static double min(double a, double b) {
        return a != a ? b : b != b ? a : Math.min(a, b);
    }

    static float max(float a, float b) {
        return a != a ? b : b != b ? a : Math.max(a, b);
    }

    static double max(double a, double b) {
        return a != a ? b : b != b ? a : Math.max(a, b);
    }

    static int min(int a, int b) {
        return Math.min(a, b);
    }

    static long min(long a, long b) {
        return Math.min(a, b);
    }

    static int max(int a, int b) {
        return Math.max(a, b);
    }

    static long max(long a, long b) {
        return Math.max(a, b);
    }

    static float abs(float a) {
        return Math.abs(a);
    }

    static double abs(double a) {
        return Math.abs(a);
    }

    // Math.abs wraps for the smallest value, as the generated C++ does.
    static int abs(int a) {
        return Math.abs(a);
    }

    static long abs(long a) {
        return Math.abs(a);
    }
}
