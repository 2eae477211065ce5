/*
 * elfimg.c - bounds-checked ELF64 reader (see elfimg.h). The layouts are glibc's <elf.h>;
 * extended section numbering (e_shnum == 0, e_shstrndx == SHN_XINDEX: the real values in
 * section 0) is followed as the gABI describes it.
 */
#include "capture/cpu/elfimg.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/err.h"

const uint8_t *elfimg_bytes(const struct elfimg *e, uint64_t off, uint64_t len)
{
    if (off > e->len || len > e->len - off) return NULL;
    return e->data + off;
}

static bool shdr_raw(const struct elfimg *e, uint64_t i, Elf64_Shdr *sh)
{
    if (!e->eh.e_shoff || i >= UINT64_MAX / sizeof(*sh)) return false;
    uint64_t off = e->eh.e_shoff + i * sizeof(*sh);
    if (off < e->eh.e_shoff) return false;
    const uint8_t *p = elfimg_bytes(e, off, sizeof(*sh));
    if (!p) return false;
    memcpy(sh, p, sizeof(*sh));
    return true;
}

int elfimg_init_mem(struct elfimg *e, const void *data, size_t len)
{
    memset(e, 0, sizeof(*e));
    e->data = data;
    e->len = len;
    if (len < SELFMAG || memcmp(data, ELFMAG, SELFMAG)) return LAT_E_UNSUPPORTED;
    if (len < sizeof(Elf64_Ehdr)) return LAT_E_TRUNCATED;
    memcpy(&e->eh, data, sizeof(e->eh));
    const unsigned char *id = e->eh.e_ident;
    if (memcmp(id, ELFMAG, SELFMAG) || id[EI_CLASS] != ELFCLASS64) return LAT_E_UNSUPPORTED;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (id[EI_DATA] != ELFDATA2LSB) return LAT_E_UNSUPPORTED;
#else
    if (id[EI_DATA] != ELFDATA2MSB) return LAT_E_UNSUPPORTED;
#endif
    e->shnum = e->eh.e_shnum;
    e->shstrndx = e->eh.e_shstrndx;
    if (e->eh.e_shoff) {
        if (e->eh.e_shentsize != sizeof(Elf64_Shdr)) return LAT_E_UNSUPPORTED;
        Elf64_Shdr s0;
        if (!shdr_raw(e, 0, &s0)) return LAT_E_TRUNCATED;
        if (e->shnum == 0) e->shnum = s0.sh_size;
        if (e->shstrndx == SHN_XINDEX) e->shstrndx = s0.sh_link;
        /* All headers inside the image (the count may come from a hostile sh_size). */
        if (e->shnum > (e->len - e->eh.e_shoff) / sizeof(Elf64_Shdr)) return LAT_E_TRUNCATED;
    } else {
        e->shnum = 0;
    }
    if (e->eh.e_phnum && e->eh.e_phentsize != sizeof(Elf64_Phdr)) e->eh.e_phnum = 0;
    return 0;
}

int elfimg_open(struct elfimg *e, const char *path)
{
    memset(e, 0, sizeof(*e));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    struct stat st;
    if (fstat(fd, &st)) {
        int rc = -errno;
        close(fd);
        return rc;
    }
    if (!S_ISREG(st.st_mode) || st.st_size <= 0) {
        close(fd);
        return LAT_E_UNSUPPORTED;
    }
    size_t len = (size_t)st.st_size;
    void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    int err = errno;
    close(fd);
    if (m == MAP_FAILED) return -err;
    int rc = elfimg_init_mem(e, m, len);
    e->map = m;
    e->map_len = len;
    if (rc) elfimg_close(e);
    return rc;
}

void elfimg_close(struct elfimg *e)
{
    if (e->map) munmap(e->map, e->map_len);
    memset(e, 0, sizeof(*e));
}

bool elfimg_shdr(const struct elfimg *e, uint64_t i, Elf64_Shdr *sh)
{
    return i < e->shnum && shdr_raw(e, i, sh);
}

bool elfimg_phdr(const struct elfimg *e, uint64_t i, Elf64_Phdr *ph)
{
    if (i >= e->eh.e_phnum || !e->eh.e_phoff) return false;
    uint64_t off = e->eh.e_phoff + i * sizeof(*ph);
    if (off < e->eh.e_phoff) return false;
    const uint8_t *p = elfimg_bytes(e, off, sizeof(*ph));
    if (!p) return false;
    memcpy(ph, p, sizeof(*ph));
    return true;
}

const char *elfimg_str(const struct elfimg *e, uint64_t sec, uint64_t off)
{
    Elf64_Shdr sh;
    if (!elfimg_shdr(e, sec, &sh) || sh.sh_type != SHT_STRTAB || off >= sh.sh_size) return NULL;
    const uint8_t *p = elfimg_bytes(e, sh.sh_offset, sh.sh_size);
    if (!p || !memchr(p + off, '\0', sh.sh_size - off)) return NULL;
    return (const char *)p + off;
}

const char *elfimg_section_name(const struct elfimg *e, const Elf64_Shdr *sh)
{
    return elfimg_str(e, e->shstrndx, sh->sh_name);
}

int elfimg_foreach_sym(const struct elfimg *e, uint32_t type, elfimg_sym_fn fn, void *arg)
{
    for (uint64_t i = 0; i < e->shnum; i++) {
        Elf64_Shdr sh;
        if (!elfimg_shdr(e, i, &sh) || sh.sh_type != type || sh.sh_entsize != sizeof(Elf64_Sym))
            continue;
        const uint8_t *p = elfimg_bytes(e, sh.sh_offset, sh.sh_size);
        if (!p) continue;
        Elf64_Shdr strs;
        if (!elfimg_shdr(e, sh.sh_link, &strs) || strs.sh_type != SHT_STRTAB) continue;
        const uint8_t *sp = elfimg_bytes(e, strs.sh_offset, strs.sh_size);
        if (!sp) continue;
        uint64_t n = sh.sh_size / sizeof(Elf64_Sym);
        for (uint64_t k = 0; k < n; k++) {
            Elf64_Sym s;
            memcpy(&s, p + k * sizeof(s), sizeof(s));
            if (!s.st_name || s.st_name >= strs.sh_size) continue;
            const char *name = (const char *)sp + s.st_name;
            if (!memchr(name, '\0', strs.sh_size - s.st_name)) continue;
            int rc = fn(arg, &s, name);
            if (rc) return rc;
        }
    }
    return 0;
}

unsigned elfimg_build_id(const struct elfimg *e, uint8_t *out, unsigned max)
{
    for (uint64_t i = 0; i < e->eh.e_phnum; i++) {
        Elf64_Phdr ph;
        if (!elfimg_phdr(e, i, &ph) || ph.p_type != PT_NOTE) continue;
        const uint8_t *p = elfimg_bytes(e, ph.p_offset, ph.p_filesz);
        if (!p) continue;
        uint64_t align = ph.p_align == 8 ? 8 : 4, off = 0, len = ph.p_filesz;
        while (len - off >= sizeof(Elf64_Nhdr)) {
            Elf64_Nhdr nh;
            memcpy(&nh, p + off, sizeof(nh));
            off += sizeof(nh);
            uint64_t name_sz = (nh.n_namesz + align - 1) & ~(align - 1);
            uint64_t desc_sz = (nh.n_descsz + align - 1) & ~(align - 1);
            if (name_sz > len - off || desc_sz > len - off - name_sz) break;
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(p + off, "GNU", 4) &&
                nh.n_descsz > 0 && nh.n_descsz <= max) {
                memcpy(out, p + off + name_sz, nh.n_descsz);
                return nh.n_descsz;
            }
            off += name_sz + desc_sz;
        }
    }
    return 0;
}
