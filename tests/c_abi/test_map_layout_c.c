/*
 * Reads Map, Dict and List objects made by the C++ headers with nothing but
 * the documented byte layout (the tables in map_base.h and seq_base.h) and the
 * documented key hash, from strict C11: a layout or hash drift fails here
 * without any other TVM-FFI implementation at hand. Driven by
 * test_containers_c_driver.cc; each entry point returns its failed checks.
 *
 * The maps hold String keys: "key-<i>" for even i (at most 7 bytes: small
 * strings) and "a longer key <i>" for odd i (heap strings), value Int i,
 * inserted for i = 0..n-1.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

#include "c_check.h"

int tvmffi_map_layout_c_read(TVMFFIObjectHandle map, int n, int32_t type_index);
int tvmffi_list_layout_c_read(TVMFFIObjectHandle list, int n);

/* ---- the documented layout ---- */
#define MAP_DATA 24
#define MAP_SIZE 32
#define MAP_SLOTS 40
#define MAP_DATA_DELETER 48
#define MAP_SMALL_ENTRIES 56
#define MAP_FIB_SHIFT 56
#define MAP_ITER_HEAD 64
#define MAP_ITER_TAIL 72
#define SMALL_TAG ((uint64_t)1 << 63)
#define BLOCK_SLOTS 16
#define BLOCK_BYTES (16 + 16 * 48)
#define ITEM_PREV 32
#define ITEM_NEXT 40
#define NO_SLOT UINT64_MAX

static uint64_t U64At(const void* base, size_t offset) {
  uint64_t v;
  memcpy(&v, (const char*)base + offset, sizeof(v));
  return v;
}

static uint64_t JumpDistance(unsigned code) {
  static const uint64_t kLarge[43] = {8515ULL,
                                      19110ULL,
                                      42778ULL,
                                      96141ULL,
                                      216153ULL,
                                      486591ULL,
                                      1092981ULL,
                                      2458653ULL,
                                      5532801ULL,
                                      12442566ULL,
                                      27993903ULL,
                                      62983476ULL,
                                      141717030ULL,
                                      318844378ULL,
                                      717352503ULL,
                                      1614057336ULL,
                                      3631522476ULL,
                                      8170957530ULL,
                                      18384510628ULL,
                                      41364789378ULL,
                                      93070452520ULL,
                                      209408356380ULL,
                                      471168559170ULL,
                                      1060128894105ULL,
                                      2385289465695ULL,
                                      5366898840628ULL,
                                      12075518705635ULL,
                                      27169915244790ULL,
                                      61132312065111ULL,
                                      137547689707000ULL,
                                      309482283181501ULL,
                                      696335127828753ULL,
                                      1566753995631385ULL,
                                      3525196511162271ULL,
                                      7931691992677701ULL,
                                      17846306936293605ULL,
                                      40154190677507445ULL,
                                      90346928918121501ULL,
                                      203280589587557251ULL,
                                      457381325854679626ULL,
                                      1029107982097042876ULL,
                                      2315492959180353330ULL,
                                      5209859154120846435ULL};
  if (code < 16) return code;
  if (code < 83) {
    uint64_t t = code - 16 + 6; /* T(6)..T(72) */
    return t * (t + 1) / 2;
  }
  return kLarge[code - 83];
}

/* ---- the documented hash ---- */
static uint64_t Mix(uint64_t seed, uint64_t v) {
  return seed ^ (v + 0x9e3779b9ULL + (seed << 6) + (seed >> 2));
}

static uint64_t BytesHash(const char* data, size_t size) {
  uint64_t h = 0;
  size_t i = 0;
  for (; i < size; i += 8) {
    uint64_t w = 0;
    size_t k, m = size - i < 8 ? size - i : 8;
    for (k = 0; k < m; ++k) w |= (uint64_t)(unsigned char)data[i + k] << (8 * k);
    h = (h * 1099511628211ULL + w) % 2147483647ULL;
  }
  return h;
}

/* The bytes of a string key in either form; 0 when not a string. */
static int StrView(const TVMFFIAny* v, TVMFFIByteArray* out) {
  if (v->type_index == kTVMFFISmallStr) {
    *out = TVMFFISmallBytesGetContentByteArray(v);
    return 1;
  }
  if (v->type_index == kTVMFFIStr) {
    *out = *TVMFFIBytesGetByteArrayPtr(v->v_obj);
    return 1;
  }
  return 0;
}

static void KeyText(int i, char* buf, size_t cap) {
  snprintf(buf, cap, (i % 2 == 0) ? "key-%d" : "a longer key %d", i);
}

static int KeyIs(const TVMFFIAny* key, const char* text) {
  TVMFFIByteArray b;
  return StrView(key, &b) && b.size == strlen(text) && memcmp(b.data, text, b.size) == 0;
}

/* ---- dense-form access ---- */
static const char* Block(const void* map, uint64_t slot) {
  const char* data = (const char*)(uintptr_t)U64At(map, MAP_DATA);
  return data + (slot / BLOCK_SLOTS) * BLOCK_BYTES;
}
static uint8_t Meta(const void* map, uint64_t slot) {
  return (uint8_t)Block(map, slot)[slot % BLOCK_SLOTS];
}
static const TVMFFIAny* Item(const void* map, uint64_t slot) {
  return (const TVMFFIAny*)(const void*)(Block(map, slot) + 16 + (slot % BLOCK_SLOTS) * 48);
}

/* Finds a string key by its hash and chain, as any reader must. */
static const TVMFFIAny* DenseFind(const void* map, const char* text) {
  uint64_t slots = U64At(map, MAP_SLOTS);
  uint32_t shift;
  uint64_t slot;
  uint8_t meta;
  memcpy(&shift, (const char*)map + MAP_FIB_SHIFT, sizeof(shift));
  slot = (Mix(kTVMFFIStr, BytesHash(text, strlen(text))) * 11400714819323198485ULL) >> shift;
  meta = Meta(map, slot);
  if (meta & 0x80) return NULL; /* empty, protected, or a link of another chain */
  for (;;) {
    const TVMFFIAny* item = Item(map, slot);
    if (KeyIs(item, text)) return item;
    if ((meta & 0x7F) == 0) return NULL;
    slot = (slot + JumpDistance(meta & 0x7F)) % slots;
    meta = Meta(map, slot);
  }
}

int tvmffi_map_layout_c_read(TVMFFIObjectHandle map, int n, int32_t type_index) {
  char text[32];
  int i;
  uint64_t slots = U64At(map, MAP_SLOTS);
  g_failures = 0;
  CHECK(TVMFFIObjectGetTypeIndex(map) == type_index);
  CHECK(U64At(map, MAP_SIZE) == (uint64_t)n);
  if (slots & SMALL_TAG) {
    /* Small: entries {key, value} at `data`, in order. */
    const TVMFFIAny* entries = (const TVMFFIAny*)(uintptr_t)U64At(map, MAP_DATA);
    uint64_t cap = slots & ~SMALL_TAG;
    CHECK(n < 4 || cap == 4);
    CHECK(cap >= 2 && cap <= 4 && (uint64_t)n <= cap);
    /* Inline after the object, unless the map moved its entries (a Dict that grew in place). */
    if (U64At(map, MAP_DATA_DELETER) == 0) {
      CHECK((const char*)entries == (const char*)map + MAP_SMALL_ENTRIES);
    }
    for (i = 0; i < n; ++i) {
      KeyText(i, text, sizeof(text));
      CHECK(KeyIs(&entries[2 * i], text));
      CHECK(entries[2 * i + 1].type_index == kTVMFFIInt && entries[2 * i + 1].v_int64 == i);
    }
    return g_failures;
  }
  /* Dense: a power of two of slots, fib_shift = 64 - log2(slots). */
  {
    uint32_t shift;
    uint64_t slot, prev = NO_SLOT, live = 0;
    memcpy(&shift, (const char*)map + MAP_FIB_SHIFT, sizeof(shift));
    CHECK(n >= 4);
    CHECK(slots >= 8 && (slots & (slots - 1)) == 0);
    CHECK(((uint64_t)1 << (64 - shift)) == slots);
    CHECK(U64At(map, MAP_DATA_DELETER) != 0);
    CHECK((double)n <= (double)slots * 0.99);
    for (slot = 0; slot < slots; ++slot) {
      uint8_t meta = Meta(map, slot);
      CHECK(meta != 0xFE); /* no protected slot once an insertion is done */
      if (meta != 0xFF) ++live;
    }
    CHECK(live == (uint64_t)n);
    /* The iteration list: insertion order, doubly linked. */
    slot = U64At(map, MAP_ITER_HEAD);
    for (i = 0; i < n && slot != NO_SLOT; ++i) {
      const TVMFFIAny* item = Item(map, slot);
      KeyText(i, text, sizeof(text));
      CHECK(KeyIs(item, text));
      CHECK(item[1].type_index == kTVMFFIInt && item[1].v_int64 == i);
      CHECK(U64At(item, ITEM_PREV) == prev);
      prev = slot;
      slot = U64At(item, ITEM_NEXT);
    }
    CHECK(i == n && slot == NO_SLOT);
    CHECK(U64At(map, MAP_ITER_TAIL) == prev);
    /* Every key is where its hash says; absent keys are not found. */
    for (i = 0; i < n; ++i) {
      const TVMFFIAny* item;
      KeyText(i, text, sizeof(text));
      item = DenseFind(map, text);
      CHECK(item != NULL);
      if (item != NULL) CHECK(item[1].v_int64 == i);
    }
    CHECK(DenseFind(map, "absent") == NULL);
    CHECK(DenseFind(map, "a longer key -1") == NULL);
  }
  return g_failures;
}

int tvmffi_list_layout_c_read(TVMFFIObjectHandle list, int n) {
  const TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(list);
  const TVMFFIAny* items = (const TVMFFIAny*)cell->data;
  int i;
  g_failures = 0;
  CHECK(TVMFFIObjectGetTypeIndex(list) == kTVMFFIList);
  CHECK(cell->size == n && cell->capacity >= n);
  CHECK(cell->data_deleter != NULL);
  for (i = 0; i < n; ++i) CHECK(items[i].type_index == kTVMFFIInt && items[i].v_int64 == i);
  return g_failures;
}
