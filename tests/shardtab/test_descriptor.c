/* test_descriptor.c - pins the peer descriptor: pack/unpack round trip, little-endian wire layout, and what unpack/validate reject (with a message). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "descriptor.h"

/* Wire offsets: magic, version, flags, comm_rank, node_rank, backend, device,
 * bytes, offset, alloc_bytes, host, boot_id, ipc_ns, pci_bus_id, handle, pid,
 * alloc_base. */
enum {
    OFF_MAGIC = 0,
    OFF_VERSION = 4,
    OFF_FLAGS = 8,
    OFF_COMM_RANK = 12,
    OFF_NODE_RANK = 16,
    OFF_BACKEND = 20,
    OFF_DEVICE = 24,
    OFF_BYTES = 28,
    OFF_OFFSET = 36,
    OFF_ALLOC = 44,
    OFF_HOST = 52,
    OFF_BOOT = OFF_HOST + ST_HOST_NAME_BYTES,
    OFF_IPC = OFF_BOOT + ST_BOOT_ID_BYTES,
    OFF_PCI = OFF_IPC + 8,
    OFF_HANDLE = OFF_PCI + 32,
    OFF_PID = OFF_HANDLE + ST_IPC_HANDLE_BYTES,
    OFF_BASE = OFF_PID + 4,
    OFF_END = OFF_BASE + 8,
};

static const char HOST[] = "node-017.cluster";
static const char BOOT[] = "3f1c2a9e-5b6d-4e7f-8a90-b1c2d3e4f506";
static const uint64_t IPC_NS = 4026531839ull;

static uint64_t get_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static void put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* A descriptor with a distinct, non-trivial value in every field. */
static void make_descriptor(st_descriptor_t *d)
{
    memset(d, 0, sizeof *d);
    d->flags = 0;
    d->comm_rank = 0x01020304;
    d->node_rank = 3;
    d->backend = SHARDTAB_BACKEND_HOST;
    d->device = -7;
    d->bytes = 0x0102030405060708ull;
    d->offset = 0x1122334455667788ull;
    d->alloc_bytes = 0x2000000000000000ull;
    snprintf(d->host, sizeof d->host, "%s", HOST);
    snprintf(d->boot_id, sizeof d->boot_id, "%s", BOOT);
    d->ipc_ns = IPC_NS;
    snprintf(d->pci_bus_id, sizeof d->pci_bus_id, "0000:c1:00.0");
    for (int i = 0; i < ST_IPC_HANDLE_BYTES; i++)
        d->handle.bytes[i] = (unsigned char)(0xA5 ^ (i * 37));
    d->pid = 0x00123456;
    d->alloc_base = 0x00007f3855e00040ull;
}

/* A descriptor that validate accepts against good_expect(). */
static void make_valid(st_descriptor_t *d)
{
    make_descriptor(d);
    d->comm_rank = 5;
    d->node_rank = 1;
    d->bytes = 800;
    d->offset = 64;
    d->alloc_bytes = 4096;
}

static st_descriptor_expect_t good_expect(void)
{
    st_descriptor_expect_t e = {5, 1, SHARDTAB_BACKEND_HOST, HOST, BOOT, IPC_NS};
    return e;
}

static void expect_error_mentions(const char *fragment)
{
    const char *msg = shardtab_last_error();
    assert_non_null(msg);
    if (strstr(msg, fragment) == NULL)
        fail_msg("last error '%s' does not mention '%s'", msg, fragment);
}

static void clear_error(void)
{
    /* A success leaves the last error alone: record something unrelated. */
    (void)shardtab_error_set(SHARDTAB_SUCCESS, "cleared");
}

static void test_descriptor_packed_size_is_constant(void **state)
{
    (void)state;
    assert_int_equal(ST_DESCRIPTOR_PACKED_BYTES, 272);
    assert_int_equal(ST_DESCRIPTOR_PACKED_BYTES, OFF_END);
}

static void test_descriptor_round_trip_keeps_every_field(void **state)
{
    st_descriptor_t in, out;
    unsigned char wire[ST_DESCRIPTOR_PACKED_BYTES];
    (void)state;
    make_descriptor(&in);
    st_descriptor_pack(&in, wire);
    memset(&out, 0xEE, sizeof out);
    assert_int_equal(st_descriptor_unpack(wire, &out), SHARDTAB_SUCCESS);
    assert_int_equal(out.flags, in.flags);
    assert_int_equal(out.comm_rank, 0x01020304);
    assert_int_equal(out.node_rank, 3);
    assert_int_equal(out.backend, SHARDTAB_BACKEND_HOST);
    assert_int_equal(out.device, -7);
    assert_true(out.bytes == 0x0102030405060708ull);
    assert_true(out.offset == 0x1122334455667788ull);
    assert_true(out.alloc_bytes == 0x2000000000000000ull);
    assert_memory_equal(out.host, in.host, sizeof in.host);
    assert_memory_equal(out.boot_id, in.boot_id, sizeof in.boot_id);
    assert_memory_equal(out.pci_bus_id, in.pci_bus_id, sizeof in.pci_bus_id);
    assert_memory_equal(out.handle.bytes, in.handle.bytes, ST_IPC_HANDLE_BYTES);
    assert_int_equal(out.pid, 0x00123456);
    assert_true(out.alloc_base == 0x00007f3855e00040ull);
}

static void test_descriptor_round_trip_keeps_empty_flag_and_extreme_values(void **state)
{
    st_descriptor_t in, out;
    unsigned char wire[ST_DESCRIPTOR_PACKED_BYTES];
    (void)state;
    make_descriptor(&in);
    in.flags = ST_DESCRIPTOR_EMPTY;
    in.comm_rank = INT32_MIN;
    in.node_rank = INT32_MAX;
    in.backend = SHARDTAB_BACKEND_CUDA;
    in.device = -1;
    in.bytes = 0;
    in.offset = UINT64_MAX;
    in.alloc_bytes = 1;
    memset(in.host, 'h', sizeof in.host - 1); /* longest name that still fits */
    in.host[sizeof in.host - 1] = '\0';
    memset(in.handle.bytes, 0xFF, ST_IPC_HANDLE_BYTES);
    st_descriptor_pack(&in, wire);
    assert_int_equal(st_descriptor_unpack(wire, &out), SHARDTAB_SUCCESS);
    assert_int_equal(out.flags, ST_DESCRIPTOR_EMPTY);
    assert_int_equal(out.comm_rank, INT32_MIN);
    assert_int_equal(out.node_rank, INT32_MAX);
    assert_int_equal(out.backend, SHARDTAB_BACKEND_CUDA);
    assert_int_equal(out.device, -1);
    assert_true(out.bytes == 0);
    assert_true(out.offset == UINT64_MAX);
    assert_true(out.alloc_bytes == 1);
    assert_memory_equal(out.host, in.host, sizeof in.host);
    assert_memory_equal(out.handle.bytes, in.handle.bytes, ST_IPC_HANDLE_BYTES);
}

static void test_descriptor_layout_is_little_endian_at_fixed_offsets(void **state)
{
    st_descriptor_t d;
    unsigned char wire[ST_DESCRIPTOR_PACKED_BYTES];
    (void)state;
    make_descriptor(&d);
    d.flags = ST_DESCRIPTOR_EMPTY;
    memset(wire, 0xCC, sizeof wire);
    st_descriptor_pack(&d, wire);
    /* magic first, as the bytes "1BTS" (0x53544231 little-endian) */
    assert_memory_equal(wire + OFF_MAGIC, "\x31\x42\x54\x53", 4);
    assert_int_equal(get_le(wire + OFF_MAGIC, 4), ST_DESCRIPTOR_MAGIC);
    assert_int_equal(get_le(wire + OFF_VERSION, 4), ST_DESCRIPTOR_VERSION);
    assert_int_equal(get_le(wire + OFF_FLAGS, 4), ST_DESCRIPTOR_EMPTY);
    assert_memory_equal(wire + OFF_COMM_RANK, "\x04\x03\x02\x01", 4);
    assert_int_equal(get_le(wire + OFF_NODE_RANK, 4), 3);
    assert_int_equal(get_le(wire + OFF_BACKEND, 4), SHARDTAB_BACKEND_HOST);
    assert_int_equal(get_le(wire + OFF_DEVICE, 4), 0xFFFFFFF9u); /* -7 */
    assert_memory_equal(wire + OFF_BYTES, "\x08\x07\x06\x05\x04\x03\x02\x01", 8);
    assert_memory_equal(wire + OFF_OFFSET, "\x88\x77\x66\x55\x44\x33\x22\x11", 8);
    assert_true(get_le(wire + OFF_ALLOC, 8) == 0x2000000000000000ull);
    assert_memory_equal(wire + OFF_HOST, d.host, ST_HOST_NAME_BYTES);
    assert_memory_equal(wire + OFF_BOOT, d.boot_id, ST_BOOT_ID_BYTES);
    assert_true(get_le(wire + OFF_IPC, 8) == IPC_NS);
    assert_memory_equal(wire + OFF_PCI, "0000:c1:00.0", 13);
    assert_memory_equal(wire + OFF_HANDLE, d.handle.bytes, ST_IPC_HANDLE_BYTES);
    assert_memory_equal(wire + OFF_PID, "\x56\x34\x12\x00", 4);
    assert_true(get_le(wire + OFF_BASE, 8) == 0x00007f3855e00040ull);
}

static void test_descriptor_pack_writes_every_byte_of_the_record(void **state)
{
    st_descriptor_t d;
    unsigned char a[ST_DESCRIPTOR_PACKED_BYTES + 8], b[ST_DESCRIPTOR_PACKED_BYTES + 8];
    (void)state;
    /* The same descriptor over two different fillings: the same record, and
     * nothing written past its end. */
    make_descriptor(&d);
    memset(a, 0x11, sizeof a);
    st_descriptor_pack(&d, a);
    memset(b, 0x22, sizeof b);
    st_descriptor_pack(&d, b);
    assert_memory_equal(a, b, ST_DESCRIPTOR_PACKED_BYTES);
    assert_memory_equal(a + ST_DESCRIPTOR_PACKED_BYTES, "\x11\x11\x11\x11\x11\x11\x11\x11", 8);
    assert_memory_equal(b + ST_DESCRIPTOR_PACKED_BYTES, "\x22\x22\x22\x22\x22\x22\x22\x22", 8);
}

static void test_descriptor_unpack_rejects_bad_magic(void **state)
{
    st_descriptor_t d, out;
    unsigned char wire[ST_DESCRIPTOR_PACKED_BYTES];
    (void)state;
    make_descriptor(&d);
    st_descriptor_pack(&d, wire);
    put_le32(wire + OFF_MAGIC, 0xDEADBEEFu);
    clear_error();
    memset(&out, 0x5A, sizeof out);
    assert_int_equal(st_descriptor_unpack(wire, &out), SHARDTAB_ERR_DESCRIPTOR);
    expect_error_mentions("magic 0xdeadbeef");
    expect_error_mentions("0x53544231");
    /* byte-swapped magic (a big-endian sender) is not accepted either */
    put_le32(wire + OFF_MAGIC, 0x31425453u);
    assert_int_equal(st_descriptor_unpack(wire, &out), SHARDTAB_ERR_DESCRIPTOR);
    expect_error_mentions("magic");
    /* output untouched on failure */
    assert_int_equal(out.comm_rank, 0x5A5A5A5A);
}

static void test_descriptor_unpack_rejects_bad_version(void **state)
{
    st_descriptor_t d, out;
    unsigned char wire[ST_DESCRIPTOR_PACKED_BYTES];
    (void)state;
    make_descriptor(&d);
    st_descriptor_pack(&d, wire);
    put_le32(wire + OFF_VERSION, 2); /* before the exporter's pid and base joined */
    clear_error();
    assert_int_equal(st_descriptor_unpack(wire, &out), SHARDTAB_ERR_DESCRIPTOR);
    expect_error_mentions("version 2");
    put_le32(wire + OFF_VERSION, 1); /* before the IPC namespace joined */
    assert_int_equal(st_descriptor_unpack(wire, &out), SHARDTAB_ERR_DESCRIPTOR);
    expect_error_mentions("version 1");
    put_le32(wire + OFF_VERSION, 0);
    assert_int_equal(st_descriptor_unpack(wire, &out), SHARDTAB_ERR_DESCRIPTOR);
    expect_error_mentions("version 0");
}

static void test_descriptor_unpack_rejects_unterminated_strings(void **state)
{
    st_descriptor_t d, out;
    unsigned char wire[ST_DESCRIPTOR_PACKED_BYTES], bad[ST_DESCRIPTOR_PACKED_BYTES];
    static const struct {
        size_t offset, bytes;
    } fields[] = {{OFF_HOST, ST_HOST_NAME_BYTES}, {OFF_BOOT, ST_BOOT_ID_BYTES}, {OFF_PCI, 32}};
    (void)state;
    make_descriptor(&d);
    d.comm_rank = 9;
    st_descriptor_pack(&d, wire);
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
        memcpy(bad, wire, sizeof bad);
        memset(bad + fields[f].offset, 'x', fields[f].bytes);
        clear_error();
        assert_int_equal(st_descriptor_unpack(bad, &out), SHARDTAB_ERR_DESCRIPTOR);
        expect_error_mentions("unterminated string");
        expect_error_mentions("rank 9");
    }
    /* the host string through the packer: all 64 bytes used, no NUL */
    memset(d.host, 'n', sizeof d.host);
    st_descriptor_pack(&d, wire);
    clear_error();
    assert_int_equal(st_descriptor_unpack(wire, &out), SHARDTAB_ERR_DESCRIPTOR);
    expect_error_mentions("unterminated");
}

static void test_descriptor_unpack_rejects_unknown_flags(void **state)
{
    st_descriptor_t d, out;
    unsigned char wire[ST_DESCRIPTOR_PACKED_BYTES];
    static const uint32_t flags[] = {2u, 3u, 0x80000000u, 0xFFFFFFFFu};
    (void)state;
    make_descriptor(&d);
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        char want[32];
        d.flags = flags[i];
        st_descriptor_pack(&d, wire);
        clear_error();
        assert_int_equal(st_descriptor_unpack(wire, &out), SHARDTAB_ERR_DESCRIPTOR);
        snprintf(want, sizeof want, "unknown flags 0x%x", (unsigned)flags[i]);
        expect_error_mentions(want);
    }
}

static void test_descriptor_validate_accepts_good_descriptor(void **state)
{
    st_descriptor_t d;
    st_descriptor_expect_t e = good_expect();
    (void)state;
    make_valid(&d);
    assert_int_equal(st_descriptor_validate(&d, &e), SHARDTAB_SUCCESS);
    /* a shard that ends exactly at the end of its allocation */
    d.offset = 4096 - 800;
    assert_int_equal(st_descriptor_validate(&d, &e), SHARDTAB_SUCCESS);
    d.offset = 0;
    d.bytes = 4096;
    assert_int_equal(st_descriptor_validate(&d, &e), SHARDTAB_SUCCESS);
}

static void test_descriptor_validate_accepts_empty_descriptor(void **state)
{
    st_descriptor_t d;
    st_descriptor_expect_t e = good_expect();
    (void)state;
    make_valid(&d);
    d.flags = ST_DESCRIPTOR_EMPTY;
    d.bytes = 0;
    d.offset = 0;
    d.alloc_bytes = 0;
    memset(d.handle.bytes, 0, ST_IPC_HANDLE_BYTES);
    assert_int_equal(st_descriptor_validate(&d, &e), SHARDTAB_SUCCESS);
}

/* Containers that share a machine (and its IPC namespace) have host names of
 * their own: the host name alone decides nothing. */
static void test_descriptor_validate_accepts_another_host_name_on_the_same_node(void **state)
{
    st_descriptor_t d;
    st_descriptor_expect_t e = good_expect();
    (void)state;
    make_valid(&d);
    snprintf(d.host, sizeof d.host, "container-b");
    assert_int_equal(st_descriptor_validate(&d, &e), SHARDTAB_SUCCESS);
}

static void test_descriptor_validate_rejects_another_ipc_namespace(void **state)
{
    st_descriptor_t d;
    st_descriptor_expect_t e = good_expect();
    (void)state;
    make_valid(&d);
    d.ipc_ns = IPC_NS + 1; /* same machine, a container with its own IPC namespace */
    clear_error();
    assert_int_equal(st_descriptor_validate(&d, &e), SHARDTAB_ERR_DESCRIPTOR);
    expect_error_mentions("another IPC namespace");
    expect_error_mentions("--ipc=host");
}

static void test_descriptor_validate_rejects_another_boot_id(void **state)
{
    st_descriptor_t d;
    st_descriptor_expect_t e = good_expect();
    (void)state;
    make_valid(&d);
    d.boot_id[0] = '4'; /* same host name, another boot: another machine */
    clear_error();
    assert_int_equal(st_descriptor_validate(&d, &e), SHARDTAB_ERR_DESCRIPTOR);
    expect_error_mentions("boot 4f1c2a9e");
    expect_error_mentions("IPC handles only open inside one node");
}

static void test_descriptor_validate_rejects_rank_mismatch(void **state)
{
    st_descriptor_t d;
    st_descriptor_expect_t e = good_expect();
    (void)state;
    make_valid(&d);
    d.comm_rank = 6;
    clear_error();
    assert_int_equal(st_descriptor_validate(&d, &e), SHARDTAB_ERR_DESCRIPTOR);
    expect_error_mentions("slot of rank 5 (node rank 1) claims rank 6 (node rank 1)");
    make_valid(&d);
    d.node_rank = 2;
    clear_error();
    assert_int_equal(st_descriptor_validate(&d, &e), SHARDTAB_ERR_DESCRIPTOR);
    expect_error_mentions("claims rank 5 (node rank 2)");
}

static void test_descriptor_validate_rejects_other_backend(void **state)
{
    st_descriptor_t d;
    st_descriptor_expect_t e = good_expect();
    (void)state;
    make_valid(&d);
    d.backend = SHARDTAB_BACKEND_HIP;
    clear_error();
    assert_int_equal(st_descriptor_validate(&d, &e), SHARDTAB_ERR_DESCRIPTOR);
    expect_error_mentions("backend 1, this rank runs 0");
}

static void test_descriptor_validate_rejects_shard_beyond_allocation(void **state)
{
    st_descriptor_t d;
    st_descriptor_expect_t e = good_expect();
    static const struct {
        uint64_t bytes, offset, alloc;
    } bad[] = {
        {800, 4096 - 799, 4096},   /* one byte past the end */
        {4097, 0, 4096},           /* larger than the allocation */
        {8, 4097, 4096},           /* offset past the end */
        {0, 4097, 4096},           /* empty, but offset past the end */
        {8, UINT64_MAX - 3, 4096}, /* offset + bytes wraps around 2^64 */
        {UINT64_MAX, 8, 4096},     /* bytes + offset wraps around 2^64 */
        {8, 0, 0},                 /* no allocation at all */
    };
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        make_valid(&d);
        d.bytes = bad[i].bytes;
        d.offset = bad[i].offset;
        d.alloc_bytes = bad[i].alloc;
        clear_error();
        if (st_descriptor_validate(&d, &e) != SHARDTAB_ERR_DESCRIPTOR)
            fail_msg("case %zu: bytes %llu at offset %llu in %llu accepted", i,
                     (unsigned long long)d.bytes, (unsigned long long)d.offset,
                     (unsigned long long)d.alloc_bytes);
        expect_error_mentions("the sizes do not add up");
    }
}

static void test_descriptor_validate_rejects_empty_flag_with_bytes(void **state)
{
    st_descriptor_t d;
    st_descriptor_expect_t e = good_expect();
    (void)state;
    make_valid(&d);
    d.flags = ST_DESCRIPTOR_EMPTY;
    d.bytes = 16;
    clear_error();
    assert_int_equal(st_descriptor_validate(&d, &e), SHARDTAB_ERR_DESCRIPTOR);
    expect_error_mentions("empty descriptor of 16 bytes");
}

static void test_descriptor_error_is_prefixed_with_host_and_rank(void **state)
{
    st_descriptor_t d;
    st_descriptor_expect_t e = good_expect();
    char want[ST_HOST_NAME_BYTES + 16], boot[ST_BOOT_ID_BYTES], host[ST_HOST_NAME_BYTES];
    (void)state;
    make_valid(&d);
    d.backend = SHARDTAB_BACKEND_CUDA;
    assert_int_equal(st_descriptor_validate(&d, &e), SHARDTAB_ERR_DESCRIPTOR);
    /* before shardtab_init (and MPI_Init): "<this host> rank -1: ..." */
    st_node_identity(host, boot);
    snprintf(want, sizeof want, "%s rank -1: ", host);
    assert_memory_equal(shardtab_last_error(), want, strlen(want));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descriptor_packed_size_is_constant),
        cmocka_unit_test(test_descriptor_round_trip_keeps_every_field),
        cmocka_unit_test(test_descriptor_round_trip_keeps_empty_flag_and_extreme_values),
        cmocka_unit_test(test_descriptor_layout_is_little_endian_at_fixed_offsets),
        cmocka_unit_test(test_descriptor_pack_writes_every_byte_of_the_record),
        cmocka_unit_test(test_descriptor_unpack_rejects_bad_magic),
        cmocka_unit_test(test_descriptor_unpack_rejects_bad_version),
        cmocka_unit_test(test_descriptor_unpack_rejects_unterminated_strings),
        cmocka_unit_test(test_descriptor_unpack_rejects_unknown_flags),
        cmocka_unit_test(test_descriptor_validate_accepts_good_descriptor),
        cmocka_unit_test(test_descriptor_validate_accepts_empty_descriptor),
        cmocka_unit_test(test_descriptor_validate_accepts_another_host_name_on_the_same_node),
        cmocka_unit_test(test_descriptor_validate_rejects_another_ipc_namespace),
        cmocka_unit_test(test_descriptor_validate_rejects_another_boot_id),
        cmocka_unit_test(test_descriptor_validate_rejects_rank_mismatch),
        cmocka_unit_test(test_descriptor_validate_rejects_other_backend),
        cmocka_unit_test(test_descriptor_validate_rejects_shard_beyond_allocation),
        cmocka_unit_test(test_descriptor_validate_rejects_empty_flag_with_bytes),
        cmocka_unit_test(test_descriptor_error_is_prefixed_with_host_and_rank),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
