// SPDX-License-Identifier: GPL-2.0
/*
 * A record's cgroup (struct iolat_record's cgroup: its kernfs id) -> its
 * path in the io controller's hierarchy: cgroup v2's where its root
 * lists "io" in cgroup.controllers, else v1's blkio.  The hierarchy's
 * directories are walked once, and again when an id is not found (a
 * cgroup made since), at most once a second.  A cgroup keeps the path it
 * was seen under after it is removed.
 *
 * A cgroup is known by its kernfs node's inode number, the low 32 bits
 * of its id: the id is the inode number and a generation above it
 * (4.19 to 5.4: union kernfs_node_id; since 5.5, a u64 made so), and a
 * directory's st_ino is the whole id since 5.5, the inode number alone
 * before (also on RHEL 8's 4.18).  The generation only moves once the
 * 32-bit numbers wrap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "dev/dev.h"
#include "util/util.h"

struct cg_entry {
	uint32_t ino;		/* key() */
	char *path;		/* from the hierarchy's root: "/", "/a/b" */
};

static struct {
	char root[PATH_MAX];	/* the hierarchy's mount; "" not found */
	bool looked;
	struct cg_entry *e;
	unsigned int nr, cap;
	double scanned_s;	/* the last walk, CLOCK_MONOTONIC */
} cg;

/* A cgroup's key: its kernfs inode number, the id's low 32 bits. */
static uint32_t key(uint64_t id)
{
	return (uint32_t)id;
}

/* Does cgroup v2's root @dir have the io controller? */
static bool v2_has_io(const char *dir)
{
	char path[PATH_MAX + 32], line[512], *tok, *save;
	bool io = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.controllers", dir);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fgets(line, sizeof(line), f))
		for (tok = strtok_r(line, " \n", &save); tok && !io;
		     tok = strtok_r(NULL, " \n", &save))
			io = !strcmp(tok, "io");
	fclose(f);
	return io;
}

/* The io controller's hierarchy, into cg.root ("" if none). */
static void find_root(void)
{
	char v1[PATH_MAX] = "";
	struct mntent *m;
	FILE *f;

	cg.looked = true;
	f = setmntent("/proc/self/mounts", "r");
	if (!f)
		return;
	while ((m = getmntent(f))) {
		if (!strcmp(m->mnt_type, "cgroup2") && !cg.root[0] &&
		    v2_has_io(m->mnt_dir))
			snprintf(cg.root, sizeof(cg.root), "%s", m->mnt_dir);
		else if (!strcmp(m->mnt_type, "cgroup") && !v1[0] &&
			 hasmntopt(m, "blkio"))
			snprintf(v1, sizeof(v1), "%s", m->mnt_dir);
	}
	endmntent(f);
	/* blkio on v1 is the io controller wherever it is mounted */
	if (v1[0])
		snprintf(cg.root, sizeof(cg.root), "%s", v1);
}

static struct cg_entry *find(uint32_t ino)
{
	unsigned int i;

	for (i = 0; i < cg.nr; i++)
		if (cg.e[i].ino == ino)
			return &cg.e[i];
	return NULL;
}

static int walk_one(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	size_t root = strlen(cg.root);

	(void)ftw;
	if (type != FTW_D || find(key(st->st_ino)))
		return 0;
	cg.e = iolat_grow(cg.e, &cg.cap, cg.nr + 1, sizeof(*cg.e));
	cg.e[cg.nr].ino = key(st->st_ino);
	cg.e[cg.nr].path = strdup(path[root] ? path + root : "/");
	if (cg.e[cg.nr].path)
		cg.nr++;
	return 0;
}

/**
 * iolat_cgroup_path() - a cgroup's path in the io controller's hierarchy
 * @id: struct iolat_record's cgroup
 *
 * Return: "/", "/system.slice/x.service"...; NULL for 0 (none) or an id
 * not found.
 */
const char *iolat_cgroup_path(uint64_t id)
{
	struct cg_entry *e;

	if (!id)
		return NULL;
	e = find(key(id));
	if (e)
		return e->path;
	if (!cg.looked)
		find_root();
	if (!cg.root[0] || (cg.nr && iolat_mono_s() - cg.scanned_s < 1))
		return NULL;
	cg.scanned_s = iolat_mono_s();
	nftw(cg.root, walk_one, 32, FTW_PHYS | FTW_MOUNT);
	e = find(key(id));
	return e ? e->path : NULL;
}

/**
 * iolat_cgroup_learn() - a cgroup's path, from elsewhere (a record file)
 * @id: its id
 * @path: its path in the io controller's hierarchy where it was seen
 *
 * Taken before the hierarchy here: iolat_cgroup_path() gives it.
 */
void iolat_cgroup_learn(uint64_t id, const char *path)
{
	struct cg_entry *e = find(key(id));
	char *p = strdup(path);

	if (!p)
		return;
	if (e) {
		free(e->path);
		e->path = p;
		return;
	}
	cg.e = iolat_grow(cg.e, &cg.cap, cg.nr + 1, sizeof(*cg.e));
	cg.e[cg.nr].ino = key(id);
	cg.e[cg.nr++].path = p;
}

/* The io controller's hierarchy's mount, or NULL if none is. */
const char *iolat_cgroup_root(void)
{
	if (!cg.looked)
		find_root();
	return cg.root[0] ? cg.root : NULL;
}

/**
 * iolat_cgroup_resolve() - a cgroup named on the command line, as an id
 * @arg: its directory, or its path in the io controller's hierarchy as
 *	 iolat prints it ("/system.slice/x.service", or without the "/")
 * @id: its id for IOLAT_A_FILTER_CGROUPS, the directory's inode number
 *
 * Return: 0, or -1 with the reason printed.
 */
int iolat_cgroup_resolve(const char *arg, uint64_t *id)
{
	const char *root = iolat_cgroup_root();
	char path[2 * PATH_MAX];
	struct stat rs, st;
	size_t n;

	if (!root) {
		iolat_err("--cgroup %s: no io controller's hierarchy is mounted (cgroup v2 with io, or v1's blkio)",
			  arg);
		return -1;
	}
	n = strlen(root);
	if (!strncmp(arg, root, n) && (!arg[n] || arg[n] == '/'))
		snprintf(path, sizeof(path), "%s", arg);
	else
		snprintf(path, sizeof(path), "%s%s%s", root,
			 *arg == '/' ? "" : "/", arg);
	if (stat(root, &rs) || stat(path, &st) || !S_ISDIR(st.st_mode)) {
		iolat_err("--cgroup %s: no such cgroup in %s", arg, root);
		return -1;
	}
	if (st.st_dev != rs.st_dev) {
		iolat_err("--cgroup %s: %s is not in the io controller's hierarchy (%s)",
			  arg, path, root);
		return -1;
	}
	*id = st.st_ino;
	return 0;
}

/* @s is @n lowercase hex digits, then @end. */
static bool hex_then(const char *s, size_t n, const char *end)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return !strcmp(s + n, end);
}

/* A container's directory: its runtime's short id into @id, or NULL. */
static const char *container(const char *dir, const char *parent, char *id,
			     size_t len)
{
	static const struct {
		const char *prefix, *runtime;
		unsigned int shown;	/* as docker ps, crictl, podman ps */
	} scopes[] = {
		{ "docker-", "docker", 12 },
		{ "cri-containerd-", "containerd", 13 },
		{ "crio-", "crio", 13 },
		{ "libpod-", "podman", 12 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++) {
		size_t n = strlen(scopes[i].prefix);

		if (!strncmp(dir, scopes[i].prefix, n) &&
		    hex_then(dir + n, 64, ".scope")) {
			snprintf(id, len, "%s:%.*s", scopes[i].runtime,
				 (int)scopes[i].shown, dir + n);
			return id;
		}
	}
	/* cgroupfs: /docker/<id>, /kubepods/<qos>/pod<uid>/<id> */
	if (hex_then(dir, 64, "")) {
		bool docker = parent && !strcmp(parent, "docker");

		snprintf(id, len, "%s:%.*s", docker ? "docker" : "container",
			 docker ? 12 : 13, dir);
		return id;
	}
	return NULL;
}

/* A pod's directory: its UID into @uid, or NULL. */
static const char *pod(const char *dir, char *uid, size_t len)
{
	const char *p = strstr(dir, "-pod");
	size_t n, i;

	/* systemd: kubepods[-<qos>]-pod<uid, '_' for '-'>.slice */
	if (!strncmp(dir, "kubepods", 8) && p && strlen(p) > 10 &&
	    !strcmp(p + strlen(p) - 6, ".slice")) {
		n = strlen(p) - 4 - 6;
		snprintf(uid, len, "%.*s", (int)n, p + 4);
		for (i = 0; uid[i]; i++)
			if (uid[i] == '_')
				uid[i] = '-';
		return uid;
	}
	/* cgroupfs: pod<uid> */
	if (!strncmp(dir, "pod", 3) && strlen(dir) == 3 + 36) {
		snprintf(uid, len, "%s", dir + 3);
		return uid;
	}
	return NULL;
}

/**
 * iolat_cgroup_name() - the name people use for a cgroup
 * @path: its path in the io controller's hierarchy ("/a/b")
 * @buf: where the name goes, if it is not the path
 * @len: its size
 *
 * A container by its runtime and short id as docker ps, crictl and
 * podman ps show it ("docker:0123456789ab", "containerd:0123456789abc"),
 * in a Kubernetes pod with the pod's UID before ("pod:<uid>
 * containerd:..."), a pod alone as "pod:<uid>"; anything else (a systemd
 * unit, "/system.slice/postgresql.service") by its path.
 * Return: @buf or @path.
 */
const char *iolat_cgroup_name(const char *path, char *buf, size_t len)
{
	char dirs[PATH_MAX], *d[64], *save, *tok, idbuf[48], uidbuf[48];
	const char *id = NULL, *uid = NULL;
	unsigned int n = 0, i;

	snprintf(dirs, sizeof(dirs), "%s", path);
	for (tok = strtok_r(dirs, "/", &save); tok && n < 64;
	     tok = strtok_r(NULL, "/", &save))
		d[n++] = tok;
	if (!n)
		return path;
	id = container(d[n - 1], n > 1 ? d[n - 2] : NULL, idbuf,
		       sizeof(idbuf));
	for (i = 0; i < n && !uid; i++)
		uid = pod(d[i], uidbuf, sizeof(uidbuf));
	if (!id && !uid)
		return path;
	snprintf(buf, len, "%s%s%s%s", uid ? "pod:" : "", uid ? uid : "",
		 uid && id ? " " : "", id ? id : "");
	return buf;
}

/**
 * iolat_cgroup_label() - how a cgroup is shown
 * @id: its id (struct iolat_record's cgroup), 0 for none
 * @path: its path, NULL if unknown (gone before it was seen)
 * @text: in text, a container by its runtime's name (iolat_cgroup_name());
 *	else (CSV, JSON, the exporter's labels) the path
 * @buf: room for the name, 128 bytes
 * @len: its size
 *
 * Return: the path or name, "#ID" for an unknown path, "-" for none.
 */
const char *iolat_cgroup_label(uint64_t id, const char *path, bool text,
			       char *buf, size_t len)
{
	if (!id)
		return "-";
	if (!path) {
		snprintf(buf, len, "#%llu", (unsigned long long)id);
		return buf;
	}
	return text ? iolat_cgroup_name(path, buf, len) : path;
}

/**
 * iolat_cgroup_gone() - is a cgroup removed?
 * @id: its id
 * @path: its path when it was seen, or NULL
 *
 * Return: true if its directory is not there, or is another cgroup's (a
 * new one of the same name), or its path is unknown.
 */
bool iolat_cgroup_gone(uint64_t id, const char *path)
{
	const char *root = iolat_cgroup_root();
	char full[2 * PATH_MAX];
	struct stat st;

	if (!root || !path)
		return true;
	snprintf(full, sizeof(full), "%s%s", root, path);
	return stat(full, &st) || (uint32_t)st.st_ino != key(id);
}
