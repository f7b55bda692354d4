/*
 * insn_count.c — a QEMU TCG plugin counting executed guest instructions between markers.
 *
 * The firmware calls three empty functions (board crate): insn_mark_begin before a measured
 * step, insn_mark_end after it, insn_mark_section after a group of steps. Their addresses are
 * passed as plugin arguments; the plugin counts every executed instruction (per translated
 * block, a callback adding its instruction count) and, at each section marker, prints for the
 * windows of that section: count, total, mean, min and max instructions per window. The
 * marker calls themselves add a constant handful of instructions per window.
 *
 * Build:  gcc -shared -fPIC -O2 -o insn_count.so insn_count.c
 * Run:    qemu-system-arm ... -plugin ./insn_count.so,begin=0x...,end=0x...,section=0x...
 *         (addresses from `nm`, Thumb bit cleared); the report goes to stderr (or -D file).
 *
 * With `profile=N` (and `profile_section=K` to restrict it to section K) it also prints, at exit, the N translated blocks (by start address) that
 * executed the most instructions inside windows, as `PROFILE <start> <instructions> <block length>`:
 * map them to functions with `nm -n`, or to source lines with tools/line_profile.py.
 *
 * Debian ships no QEMU plugin header, so the few declarations of the plugin API used here
 * (stable since QEMU 4.2, API version 1 as in QEMU 7.2) are written out below.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags {
    QEMU_PLUGIN_CB_NO_REGS,
    QEMU_PLUGIN_CB_R_REGS,
    QEMU_PLUGIN_CB_RW_REGS,
};
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

extern void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
extern void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
                                                 enum qemu_plugin_cb_flags flags, void *userdata);
extern void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
                                                   enum qemu_plugin_cb_flags flags, void *userdata);
extern size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
extern struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
extern uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
extern void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
extern void qemu_plugin_outs(const char *string);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t marker_begin, marker_end, marker_section;
static uint64_t total;        /* instructions executed so far */
static uint64_t window_start; /* total at the last begin marker */
static bool in_window;
static uint64_t sec_windows, sec_sum, sec_min, sec_max;
static unsigned section_index;

/* Optional profile: instructions inside windows per translated-block start address. */
#define PROFILE_SLOTS 65536
struct tb_info {
    uint64_t pc;
    uint64_t n;
    uint64_t in_window; /* instructions executed inside windows */
};
static struct tb_info *profile_slots;
static unsigned profile_top;
static long profile_section = -1; /* profile only this section (all when -1) */

static void on_tb(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    total += (uint64_t)(uintptr_t)udata;
}

static void on_tb_profiled(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    struct tb_info *info = udata;
    total += info->n;
    if (in_window && (profile_section < 0 || (long)section_index == profile_section))
        info->in_window += info->n;
}

static struct tb_info *profile_slot(uint64_t pc, uint64_t n)
{
    size_t i = (size_t)((pc >> 1) * 2654435761u) % PROFILE_SLOTS;
    for (size_t probe = 0; probe < PROFILE_SLOTS; probe++, i = (i + 1) % PROFILE_SLOTS) {
        if (profile_slots[i].n == 0 || (profile_slots[i].pc == pc && profile_slots[i].n == n)) {
            profile_slots[i].pc = pc;
            profile_slots[i].n = n;
            return &profile_slots[i];
        }
    }
    return NULL;
}

static void on_begin(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    (void)udata;
    window_start = total;
    in_window = true;
}

static void on_end(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    (void)udata;
    if (!in_window)
        return;
    uint64_t n = total - window_start;
    in_window = false;
    if (sec_windows == 0 || n < sec_min)
        sec_min = n;
    if (n > sec_max)
        sec_max = n;
    sec_sum += n;
    sec_windows++;
}

static void on_section(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    (void)udata;
    char line[256];
    uint64_t mean = sec_windows ? sec_sum / sec_windows : 0;
    snprintf(line, sizeof line,
             "INSN section %u: windows=%" PRIu64 " total=%" PRIu64 " mean=%" PRIu64 " min=%" PRIu64
             " max=%" PRIu64 "\n",
             section_index, sec_windows, sec_sum, mean, sec_min, sec_max);
    qemu_plugin_outs(line);
    section_index++;
    sec_windows = sec_sum = sec_min = sec_max = 0;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    struct tb_info *info = NULL;
    if (profile_slots && n > 0)
        info = profile_slot(qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, 0)), n);
    if (info)
        qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb_profiled, QEMU_PLUGIN_CB_NO_REGS, info);
    else
        qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)n);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint64_t pc = qemu_plugin_insn_vaddr(insn);
        if (pc == marker_begin)
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_begin, QEMU_PLUGIN_CB_NO_REGS, NULL);
        else if (pc == marker_end)
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_end, QEMU_PLUGIN_CB_NO_REGS, NULL);
        else if (pc == marker_section)
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_section, QEMU_PLUGIN_CB_NO_REGS, NULL);
    }
}

static void on_plugin_exit(qemu_plugin_id_t id, void *udata)
{
    (void)id;
    (void)udata;
    char line[128];
    snprintf(line, sizeof line, "INSN run total=%" PRIu64 "\n", total);
    qemu_plugin_outs(line);
    for (unsigned k = 0; profile_slots && k < profile_top; k++) {
        struct tb_info *best = NULL;
        for (size_t i = 0; i < PROFILE_SLOTS; i++)
            if (profile_slots[i].in_window && (!best || profile_slots[i].in_window > best->in_window))
                best = &profile_slots[i];
        if (!best)
            break;
        snprintf(line, sizeof line, "PROFILE 0x%08" PRIx64 " %" PRIu64 " %" PRIu64 "\n", best->pc, best->in_window,
                 best->n);
        qemu_plugin_outs(line);
        best->in_window = 0;
    }
}

static uint64_t parse_address(const char *value)
{
    /* Thumb function symbols carry bit 0 set; instruction addresses do not. */
    return strtoull(value, NULL, 0) & ~(uint64_t)1;
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                                               int argc, char **argv)
{
    (void)info;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (strncmp(arg, "begin=", 6) == 0)
            marker_begin = parse_address(arg + 6);
        else if (strncmp(arg, "end=", 4) == 0)
            marker_end = parse_address(arg + 4);
        else if (strncmp(arg, "section=", 8) == 0)
            marker_section = parse_address(arg + 8);
        else if (strncmp(arg, "profile=", 8) == 0) {
            profile_top = (unsigned)strtoul(arg + 8, NULL, 0);
            profile_slots = calloc(PROFILE_SLOTS, sizeof *profile_slots);
        } else if (strncmp(arg, "profile_section=", 16) == 0)
            profile_section = strtol(arg + 16, NULL, 0);
        else {
            fprintf(stderr, "insn_count: unknown argument %s\n", arg);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_plugin_exit, NULL);
    return 0;
}
