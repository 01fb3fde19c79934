/* dt_partition_file.c: counts of a partition into a counts file; the
 * "partition only" path of --epochs 0 --write-partition. */
#include "dt_partition_file.h"

#include <stdio.h>
#include <stdlib.h>

#include "cm_labels.h"

cm_status dt_partition_save_counts(const char *path, const dt_partition *p,
                                   const uint8_t *labels, size_t n_images,
                                   dt_dataset dataset,
                                   const dt_part_spec *spec, uint64_t seed)
{
    cm_labels l;
    cm_labels_init(&l);
    l.n = p->n_workers;
    l.k = DT_DATA_CLASSES;
    l.count = malloc(l.n * l.k * sizeof *l.count);
    if (!l.count)
        return cm_error(CM_ENOMEM, "out of memory for the partition counts");
    dt_partition_counts(p, labels, l.k, l.count);
    char part[64];
    dt_partition_spec_str(spec, part, sizeof part);
    cm_labels_set_identity(&l, dt_dataset_name(dataset), part, seed,
                           n_images);
    char comment[512];
    snprintf(comment, sizeof comment, "written by dpsgd-train "
             "--write-partition: data set %s, partition %s, seed %llu, %zu "
             "workers, %zu training images\none line per worker (worker "
             "i trains on shard i): %zu class counts", dt_dataset_name(dataset),
             part, (unsigned long long)seed, l.n, n_images, l.k);
    cm_status s = cm_labels_save(&l, path, comment);
    if (s != CM_OK)
        cm_error_prefix(s, "--write-partition");
    cm_labels_destroy(&l);
    return s;
}

cm_status dt_partition_write_only(const char *path, dt_dataset dataset,
                                  const char *dir, size_t synth_train,
                                  size_t train_limit, size_t n_workers,
                                  const dt_part_spec *spec, size_t min_shard,
                                  uint64_t seed)
{
    dt_source src = {0};
    uint8_t *labels = NULL;
    size_t n = 0;
    dt_partition p;
    dt_partition_init(&p);
    cm_status s = dt_source_init(&src, dataset, dir, seed);
    if (s == CM_OK) {
        src.synth_n[DT_SPLIT_TRAIN] = synth_train;
        s = dt_data_labels(&src, DT_SPLIT_TRAIN, &labels, &n);
    }
    if (s == CM_OK) {
        if (train_limit && train_limit < n)
            n = train_limit;
        s = dt_partition_make(&p, spec, labels, n, DT_DATA_CLASSES,
                              n_workers, min_shard, seed);
        if (s != CM_OK)
            cm_error_prefix(s, "--partition");
    }
    if (s == CM_OK)
        s = dt_partition_save_counts(path, &p, labels, n, dataset, spec,
                                     seed);
    dt_partition_destroy(&p);
    free(labels);
    dt_source_destroy(&src);
    return s;
}
