// SPDX-License-Identifier: GPL-2.0
/*
 * Clock test, in the spirit of fio's cpuclock test.  A latency is the
 * difference of two reads taken on two CPUs (issue and completion), so
 * the clock must never go back from one CPU to another.  A thread bound
 * to each online CPU reads the clock between loading a shared sequence
 * number and advancing it with compare-and-swap; a read whose CAS wins
 * took place after every read before it in the sequence, so the reads in
 * sequence order must not decrease.  Each decrease is an inversion,
 * counted per pair of CPUs.  The clock read is ordered after the load of
 * the sequence (smp_rmb(), and the clock's own ordering: rdtsc_ordered()
 * fences, plain rdtsc() does not, which is why it is a candidate).
 *
 * At module load a short run checks the clock the probes use and warns
 * if it goes back; GET_INFO reports the count and the CLI repeats the
 * warning.
 *
 * The test's negative control: with the module parameter
 * clocktest_skew_ns set, the candidates end with "skewed_control",
 * ktime_get_ns() set back by that much on the odd-numbered CPUs, which
 * the test must find going back from the even CPUs to the odd ones
 * (acct_test).  No stage ever reads it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/cpu.h>
#include <linux/mutex.h>
#include <linux/vmalloc.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/timekeeping.h>
#ifdef CONFIG_X86
#include <asm/msr.h>
#endif
#include "iolat.h"
#include "clocktest.h"

struct iolat_clock {
	const char *name;
	const char *units;
	u64 (*read)(void);
};

static u64 iolat_clock_mono(void)
{
	return iolat_now();
}

static u64 iolat_clock_raw(void)
{
	return ktime_get_raw_ns();
}

static u64 iolat_clock_local(void)
{
	return local_clock();
}

#ifdef CONFIG_X86
static u64 iolat_clock_tsc_ordered(void)
{
	return rdtsc_ordered();
}

static u64 iolat_clock_tsc(void)
{
	return rdtsc();
}
#endif

static ulong clocktest_skew_ns;
module_param(clocktest_skew_ns, ulong, 0644);
MODULE_PARM_DESC(clocktest_skew_ns,
		 "the clock test's negative control: a clock set back by this many ns on odd CPUs (0: none)");

static u64 iolat_clock_skewed(void)
{
	return iolat_now() -
	       (raw_smp_processor_id() & 1 ? READ_ONCE(clocktest_skew_ns) : 0);
}

static const struct iolat_clock iolat_clock_control = {
	"skewed_control", "ns", iolat_clock_skewed
};

/* The first is the clock of every stage (iolat_now()). */
static const struct iolat_clock iolat_clocks[] = {
	{ "ktime_get_ns", "ns", iolat_clock_mono },
	{ "ktime_get_mono_fast_ns", "ns", ktime_get_mono_fast_ns },
	{ "ktime_get_raw_ns", "ns", iolat_clock_raw },
	{ "local_clock", "ns", iolat_clock_local },
#ifdef CONFIG_X86
	{ "rdtsc_ordered", "cycles", iolat_clock_tsc_ordered },
	{ "rdtsc", "cycles", iolat_clock_tsc },
#endif
};

struct iolat_clock_read {
	u64 t;
	u32 cpu;
};

struct iolat_clock_run {
	const struct iolat_clock *clock;
	atomic64_t seq;
	u64 total;
	struct iolat_clock_read *reads;	/* [total], by sequence number */
	atomic_t running;
	struct completion done;
};

struct iolat_clock_result {
	u64 samples;
	u64 inversions;
	u64 max_back;
	u64 read_ps;
	u64 *pairs;		/* [nr_cpu_ids * nr_cpu_ids] */
};

static DEFINE_MUTEX(iolat_clock_mutex);
static u64 iolat_clock_load_inversions;

static int iolat_clock_thread(void *arg)
{
	struct iolat_clock_run *run = arg;
	u32 cpu = raw_smp_processor_id();
	s64 seq;
	u64 t;

	for (;;) {
		do {
			seq = atomic64_read(&run->seq);
			if (seq >= run->total)
				goto out;
			smp_rmb();	/* the read follows the load */
			t = run->clock->read();
		} while (atomic64_cmpxchg(&run->seq, seq, seq + 1) != seq);
		run->reads[seq].t = t;
		run->reads[seq].cpu = cpu;
		cond_resched();
	}
out:
	if (atomic_dec_and_test(&run->running))
		complete(&run->done);
	/* wait for kthread_stop(), which collects the threads */
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* Reads of @run's clock from a thread per online CPU, in sequence order. */
static int iolat_clock_collect(struct iolat_clock_run *run)
{
	struct task_struct **threads;
	unsigned int n = 0, i;
	int cpu, err = 0;

	threads = kcalloc(nr_cpu_ids, sizeof(*threads), GFP_KERNEL);
	if (!threads)
		return -ENOMEM;
	atomic64_set(&run->seq, 0);
	init_completion(&run->done);
	cpus_read_lock();
	atomic_set(&run->running, num_online_cpus());
	for_each_online_cpu(cpu) {
		threads[n] = kthread_create(iolat_clock_thread, run,
					    "iolat_clock/%d", cpu);
		if (IS_ERR(threads[n])) {
			err = PTR_ERR(threads[n]);
			break;
		}
		kthread_bind(threads[n], cpu);
		get_task_struct(threads[n]);
		n++;
	}
	if (!err) {
		for (i = 0; i < n; i++)
			wake_up_process(threads[i]);
		if (!wait_for_completion_timeout(&run->done, 60 * HZ))
			err = -ETIMEDOUT;
	} else {
		/* never woken: they stop without running */
		atomic64_set(&run->seq, run->total);
	}
	for (i = 0; i < n; i++) {
		kthread_stop(threads[i]);
		put_task_struct(threads[i]);
	}
	cpus_read_unlock();
	kfree(threads);
	return err;
}

/* Cost of one read, on this CPU, in picoseconds. */
static u64 iolat_clock_cost(const struct iolat_clock *clock)
{
	const unsigned int n = 10000;
	u64 t0, t1, acc = 0;
	unsigned int i;

	preempt_disable();
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++)
		acc += clock->read();
	t1 = ktime_get_ns();
	preempt_enable();
	barrier_data(&acc);
	return div_u64((t1 - t0) * 1000, n);
}

static int iolat_clock_test(const struct iolat_clock *clock, u32 loops,
			    struct iolat_clock_result *res)
{
	struct iolat_clock_run run = { .clock = clock };
	u64 i;
	int err;

	run.total = min_t(u64, (u64)loops * num_online_cpus(), 1U << 22);
	run.reads = vmalloc(array_size(run.total, sizeof(*run.reads)));
	if (!run.reads)
		return -ENOMEM;
	err = iolat_clock_collect(&run);
	if (err)
		goto out;
	res->samples = run.total;
	res->inversions = 0;
	res->max_back = 0;
	for (i = 1; i < run.total; i++) {
		const struct iolat_clock_read *a = &run.reads[i - 1];
		const struct iolat_clock_read *b = &run.reads[i];

		if (b->t >= a->t)
			continue;
		res->inversions++;
		res->max_back = max(res->max_back, a->t - b->t);
		if (res->pairs && a->cpu < nr_cpu_ids && b->cpu < nr_cpu_ids)
			res->pairs[a->cpu * nr_cpu_ids + b->cpu]++;
	}
	res->read_ps = iolat_clock_cost(clock);
out:
	vfree(run.reads);
	return err;
}

/* Module load: does the clock of every stage go back across CPUs? */
int iolat_clocktest_init(void)
{
	struct iolat_clock_result res = {};
	int err;

	err = iolat_clock_test(&iolat_clocks[0], IOLAT_CLOCK_LOOPS_LOAD, &res);
	if (err)
		return err;
	iolat_clock_load_inversions = res.inversions;
	if (res.inversions)
		pr_warn("%s went back across CPUs %llu times in %llu reads (by up to %llu ns): latencies between CPUs are not exact\n",
			iolat_clocks[0].name, res.inversions, res.samples,
			res.max_back);
	return 0;
}

u64 iolat_clock_inversions(void)
{
	return READ_ONCE(iolat_clock_load_inversions);
}

static int iolat_clock_put(struct sk_buff *msg, const struct iolat_clock *clock,
			   bool in_use, const struct iolat_clock_result *res)
{
	struct nlattr *nest, *pair;
	unsigned int a, b;
	u64 n;

	nest = nla_nest_start(msg, IOLAT_A_CLOCK);
	if (!nest ||
	    nla_put_string(msg, IOLAT_CLOCK_A_NAME, clock->name) ||
	    nla_put_string(msg, IOLAT_CLOCK_A_UNITS, clock->units) ||
	    (in_use && nla_put_flag(msg, IOLAT_CLOCK_A_IN_USE)) ||
	    nla_put_u64_64bit(msg, IOLAT_CLOCK_A_READ_PS, res->read_ps,
			      IOLAT_CLOCK_A_PAD) ||
	    nla_put_u64_64bit(msg, IOLAT_CLOCK_A_SAMPLES, res->samples,
			      IOLAT_CLOCK_A_PAD) ||
	    nla_put_u64_64bit(msg, IOLAT_CLOCK_A_INVERSIONS, res->inversions,
			      IOLAT_CLOCK_A_PAD) ||
	    nla_put_u64_64bit(msg, IOLAT_CLOCK_A_MAX_BACK, res->max_back,
			      IOLAT_CLOCK_A_PAD))
		return -EMSGSIZE;
	for (a = 0; a < nr_cpu_ids; a++) {
		for (b = 0; b < nr_cpu_ids; b++) {
			n = res->pairs[a * nr_cpu_ids + b];
			if (!n)
				continue;
			pair = nla_nest_start(msg, IOLAT_CLOCK_A_PAIR);
			if (!pair ||
			    nla_put_u32(msg, IOLAT_PAIR_A_FROM, a) ||
			    nla_put_u32(msg, IOLAT_PAIR_A_TO, b) ||
			    nla_put_u64_64bit(msg, IOLAT_PAIR_A_COUNT, n,
					      IOLAT_PAIR_A_PAD))
				return -EMSGSIZE;
			nla_nest_end(msg, pair);
		}
	}
	nla_nest_end(msg, nest);
	return 0;
}

/**
 * iolat_clocktest_reply() - test every candidate clock and reply
 * @info: the CLOCKTEST request
 * @family: the family to reply as
 * @loops: reads per online CPU and clock
 *
 * Return: 0 or a negative errno, with an extended-ack message.
 */
int iolat_clocktest_reply(struct genl_info *info, struct genl_family *family,
			  u32 loops)
{
	struct iolat_clock_result res = {};
	struct sk_buff *msg;
	unsigned int i;
	void *hdr;
	int err;

	res.pairs = kvcalloc(array_size(nr_cpu_ids, nr_cpu_ids),
			     sizeof(*res.pairs), GFP_KERNEL);
	msg = genlmsg_new(GENLMSG_DEFAULT_SIZE * 4, GFP_KERNEL);
	if (!res.pairs || !msg) {
		err = -ENOMEM;
		goto fail;
	}
	hdr = genlmsg_put_reply(msg, info, family, 0, IOLAT_CMD_CLOCKTEST);
	if (!hdr) {
		err = -EMSGSIZE;
		goto fail;
	}
	mutex_lock(&iolat_clock_mutex);
	for (i = 0; i <= ARRAY_SIZE(iolat_clocks); i++) {
		const struct iolat_clock *clock = i < ARRAY_SIZE(iolat_clocks) ?
			&iolat_clocks[i] : &iolat_clock_control;

		/* the negative control only when asked for */
		if (clock == &iolat_clock_control && !READ_ONCE(clocktest_skew_ns))
			break;
		memset(res.pairs, 0,
		       array_size(nr_cpu_ids * nr_cpu_ids, sizeof(*res.pairs)));
		err = iolat_clock_test(clock, loops, &res);
		if (!err)
			err = iolat_clock_put(msg, clock, !i, &res);
		if (err)
			break;
	}
	mutex_unlock(&iolat_clock_mutex);
	if (err) {
		if (err == -EMSGSIZE)
			NL_SET_ERR_MSG(info->extack,
				       "too many CPU pairs inverted to report");
		else
			NL_SET_ERR_MSG(info->extack,
				       "the clock test could not run its threads");
		goto fail;
	}
	genlmsg_end(msg, hdr);
	kvfree(res.pairs);
	return genlmsg_reply(msg, info);
fail:
	nlmsg_free(msg);
	kvfree(res.pairs);
	return err;
}
