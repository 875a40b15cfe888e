// SPDX-License-Identifier: GPL-2.0
/*
 * A stacked device's trace and its peers' view of it: see upper_rows.h.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "upper_rows.h"

void upper_row(void *arg, const struct row *r)
{
	struct upper_rows *u = arg;

	if (strcmp(r->dev, u->kname)) {
		u->lower++;
		u->lower_reads += !strcmp(r->op, "read");
		u->lower_writes += !strcmp(r->op, "write");
		if (strstr(r->flags, "stack")) {
			u->joined++;
			u->joined_bios += r->nr_bios;
			u->joined_not_fio += strcmp(r->comm, "fio") != 0;
			if (u->low_rows < MAX_LOW) {
				u->low_link[u->low_rows] = r->link;
				u->low_first[u->low_rows] = r->t[0] ? r->t[0] :
							    r->t[1] ? r->t[1] :
							    r->t[2] ? r->t[2] : r->t[3];
				snprintf(u->low_dev[u->low_rows],
					 sizeof(u->low_dev[0]), "%s", r->dev);
				u->low_sector[u->low_rows] = r->sector;
				u->low_d2c[u->low_rows] = r->t[3] ?
					(long long)(r->t[4] - r->t[3]) : -1;
				u->low_op[u->low_rows] = r->op[0];
				u->low_c[u->low_rows++] = r->t[4];
			}
		}
		return;
	}
	if (u->rows < MAX_BIOS) {
		u->link[u->rows] = r->link;
		u->q[u->rows] = r->t[0];
		u->c[u->rows] = r->t[4];
		u->sector[u->rows] = r->sector;
		u->q2c[u->rows] = r->t[4] - r->t[0];
		u->op[u->rows] = r->op[0];
	}
	u->rows++;
	u->reads += !strcmp(r->op, "read");
	u->writes += !strcmp(r->op, "write");
	u->not_fio += strcmp(r->comm, "fio") != 0;
	u->not_bio += !strstr(r->flags, "bio");
}

/*
 * blktrace's Q and C of each bio of device @kname (BT/bt.txt), paired by
 * sector and direction: for each of @u's rows that has a pair, the
 * distance of its Q2C from blktrace's into @diff and its Q2C into @q2c,
 * both sorted.  Return: how many rows had a pair, or -1.
 */
long q2c_pairs(const struct upper_rows *u, const char *devt,
		      long long *q2c, long long *diff)
{
	static unsigned long long sec[MAX_BIOS * 2];
	static double bq[MAX_BIOS * 2], bc[MAX_BIOS * 2];
	static char dir[MAX_BIOS * 2];
	char cmd[512], line[256], d;
	long n = 0, m = 0, i, j;
	FILE *fp;

	snprintf(cmd, sizeof(cmd),
		 "awk '$1 == \"%s\" && ($6 == \"Q\" || $6 == \"C\") && $7 ~ /^[RW]/ { k = $8 \" \" substr($7, 1, 1); "
		 "if ($6 == \"Q\") q[k] = $4; else if (k in q) { print $8, substr($7, 1, 1), q[k], $4; delete q[k] } }' " BT "/bt.txt",
		 devt);
	fp = popen(cmd, "r");
	if (!fp)
		return -1;
	while (m < MAX_BIOS * 2 && fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%llu %c %lf %lf", &sec[m], &d, &bq[m], &bc[m]) == 4)
			dir[m++] = d;
	}
	pclose(fp);
	for (i = 0; i < u->rows && i < MAX_BIOS; i++) {
		for (j = 0; j < m; j++) {
			if (sec[j] != u->sector[i] ||
			    dir[j] != (u->op[i] == 'r' ? 'R' : 'W'))
				continue;
			q2c[n] = u->q2c[i];
			diff[n++] = llabs(u->q2c[i] -
					  (long long)((bc[j] - bq[j]) * 1e9));
			sec[j] = ~0ULL;		/* each pair once */
			break;
		}
	}
	qsort(q2c, n, sizeof(q2c[0]), cmp_ll);
	qsort(diff, n, sizeof(diff[0]), cmp_ll);
	return n;
}

/*
 * blktrace's events of action @act ("Q", "X") of the direction @rw ("R",
 * "W", or "RW" for both) on device @devt ("253,0") in BT/bt.txt
 * (blkparse's text); with @act "A", the remaps from @devt to the other
 * devices traced.
 */
long blkparse_n(const char *act, const char *rw, const char *devt)
{
	char cmd[256], line[64];
	long n = -1;
	FILE *fp;

	if (!strcmp(act, "A"))
		snprintf(cmd, sizeof(cmd),
			 "awk '$6 == \"A\" && $7 ~ /^[%s]/ && $(NF-1) == \"(%s)\" { n++ } END { print n + 0 }' " BT "/bt.txt",
			 rw, devt);
	else
		snprintf(cmd, sizeof(cmd),
			 "awk '$1 == \"%s\" && $6 == \"%s\" && $7 ~ /^[%s]/ { n++ } END { print n + 0 }' " BT "/bt.txt",
			 devt, act, rw);
	fp = popen(cmd, "r");
	if (!fp)
		return -1;
	if (fgets(line, sizeof(line), fp))
		n = strtol(line, NULL, 10);
	pclose(fp);
	return n;
}

/* "MAJOR,MINOR" of block device @kname, as blkparse prints it. */
int devt_of(const char *kname, char *devt, size_t len)
{
	char path[128], *text;

	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", kname);
	text = slurp(path);
	if (!text || !strchr(text, ':')) {
		free(text);
		return -1;
	}
	text[strcspn(text, "\n")] = '\0';
	*strchr(text, ':') = ',';
	snprintf(devt, len, "%s", text);
	free(text);
	return 0;
}

/*
 * The kernel's count of reads (@f[0]) and writes (@f[1]) completed by
 * the devices named in @lowers ("nullb0 nullb1"), summed.
 */
int lower_stat(const char *lowers, unsigned long long f[2])
{
	unsigned long long s[17];
	char *l = strdup(lowers), *p;
	int rc = 0;

	if (!l)
		return -1;
	f[0] = f[1] = 0;
	for (p = strtok(l, " "); p; p = strtok(NULL, " ")) {
		if (dev_stat(p, s) < 11) {
			rc = -1;
			break;
		}
		f[0] += s[0];
		f[1] += s[4];
	}
	free(l);
	return rc;
}



/*
 * Each request below marked "stack" names by its link an I/O of the
 * device (a row of @u's) and lies within it, from its first stage to its
 * completion; each I/O's requests below: in @per_io, how many I/Os had
 * 0, 1, 2 and more.  Return: the requests that name no I/O of the device
 * or lie outside theirs.
 */
long links_check(const struct upper_rows *u, long per_io[4])
{
	static long n[MAX_BIOS];
	long i, j, bad = 0;

	memset(n, 0, sizeof(n));
	for (i = 0; i < u->low_rows; i++) {
		for (j = 0; j < u->rows && j < MAX_BIOS; j++)
			if (u->link[j] && u->link[j] == u->low_link[i])
				break;
		if (j == u->rows || j == MAX_BIOS ||
		    u->low_first[i] < u->q[j] || u->low_c[i] > u->c[j]) {
			bad++;
			continue;
		}
		n[j]++;
	}
	memset(per_io, 0, 4 * sizeof(per_io[0]));
	for (j = 0; j < u->rows && j < MAX_BIOS; j++)
		per_io[n[j] < 3 ? n[j] : 3]++;
	return bad;
}

/*
 * blktrace's @act ("D" or "Q") and C of the requests of the devices
 * below (BT/bt.txt), paired with @u's requests marked "stack" by device,
 * sector and direction: for each pair, the request's D2C (Q2C: from its
 * first stamp, its queueing there) into @t and its distance from
 * blktrace's into @diff (each of MAX_LOW), both sorted.  Return: how
 * many, or -1.
 */
long lower_pairs(const struct upper_rows *u, const struct stack_case *c,
			char act, long long *t, long long *diff)
{
	static unsigned long long sec[MAX_BIOS * 2];
	static double bd[MAX_BIOS * 2], bc[MAX_BIOS * 2];
	static char dev[MAX_BIOS * 2][16], dir[MAX_BIOS * 2];
	char want[16], line[256], cmd[512], d;
	long n = 0, m = 0, i, j;
	long long mine;
	FILE *fp;

	/* devices by blkparse's "MAJOR,MINOR", @act and then completion */
	snprintf(cmd, sizeof(cmd),
		 "awk '($6 == \"%c\" || $6 == \"C\") && $7 ~ /^[RW]/ { k = $1 \" \" $8 \" \" substr($7, 1, 1); "
		 "if ($6 == \"%c\") dt[k] = $4; else if (k in dt) { print $1, $8, substr($7, 1, 1), dt[k], $4; delete dt[k] } }' " BT "/bt.txt",
		 act, act);
	fp = popen(cmd, "r");
	if (!fp)
		return -1;
	while (m < MAX_BIOS * 2 && fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%15s %llu %c %lf %lf", dev[m], &sec[m], &d,
			   &bd[m], &bc[m]) == 5)
			dir[m++] = d;
	}
	pclose(fp);
	for (i = 0; i < u->low_rows; i++) {
		mine = act == 'D' ? u->low_d2c[i] :
		       (long long)(u->low_c[i] - u->low_first[i]);
		if (mine < 0 ||
		    devt_of(c->low_disk ? c->low_disk : u->low_dev[i], want,
			    sizeof(want)))
			continue;
		for (j = 0; j < m; j++) {
			if (sec[j] != c->low_start + u->low_sector[i] ||
			    strcmp(dev[j], want) ||
			    dir[j] != (u->low_op[i] == 'r' ? 'R' : 'W'))
				continue;
			t[n] = mine;
			diff[n++] = llabs(mine -
					  (long long)((bc[j] - bd[j]) * 1e9));
			sec[j] = ~0ULL;		/* each pair once */
			break;
		}
	}
	qsort(t, n, sizeof(t[0]), cmp_ll);
	qsort(diff, n, sizeof(diff[0]), cmp_ll);
	return n;
}

/* The mean of @n values. */
double mean_ll(const long long *v, long n)
{
	double sum = 0;
	long i;

	for (i = 0; i < n; i++)
		sum += v[i];
	return n ? sum / n : 0;
}

/*
 * btt's figures of device @devt ("253,0") in table @table ("Q2Cdm": from
 * the bio's queueing on the device, through remaps, to its completion
 * there; "D2C") of its per-device section (btt -A) on BT/bt.bin: the
 * mean in ns into *@avg and the count into *@n.  Return: 0, or -1 if
 * btt has no such line.
 */
int btt_dev(const char *devt, const char *table, double *avg, long *n)
{
	unsigned int maj, min;
	char cmd[512];
	double a = -1, k = -1;
	FILE *fp;

	if (sscanf(devt, "%u,%u", &maj, &min) != 2)
		return -1;
	/* btt's device label: "(253,  0)" */
	snprintf(cmd, sizeof(cmd),
		 "cd " BT " && btt -i bt.bin -A 2>/dev/null | "
		 "awk -v dev='(%3u,%3u)' -v t=%s '/^=+ Per Device =+/ { sec = 1; next } /^=+ / { sec = 0 } "
		 "sec && $1 == t && $2 == \"MIN\" { tab = 1; next } NF == 0 { tab = 0 } "
		 "sec && tab && index($0, dev) == 1 { print $(NF - 2), $NF; exit }'",
		 maj, min, table);
	fp = popen(cmd, "r");
	if (!fp)
		return -1;
	if (fscanf(fp, "%lf %lf", &a, &k) != 2)
		a = -1;
	pclose(fp);
	if (a < 0)
		return -1;
	*avg = a * 1e9;
	*n = (long)k;
	return 0;
}

/*
 * btt's Q2C of device @devt: in its table "Q2C", or "Q2Cdm" for the
 * majors btt takes for device-mapper's (253, and null_blk's next to it).
 */
int btt_q2c(const char *devt, double *avg, long *n)
{
	return btt_dev(devt, "Q2C", avg, n) && btt_dev(devt, "Q2Cdm", avg, n) ?
	       -1 : 0;
}
