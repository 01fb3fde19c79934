/* topogen_lock.c: libtopogen's one mutex (topogen_handle.h), recursive,
 * made once; below both topogen_api.c and topogen_measure.c, so neither
 * calls up into the other for it.
 */
#include "topogen_handle.h"

#include <pthread.h>

static pthread_mutex_t api_lock;
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

static void api_lock_init(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&api_lock, &a);
    pthread_mutexattr_destroy(&a);
}

void topogen_lock(void)
{
    pthread_once(&api_once, api_lock_init);
    pthread_mutex_lock(&api_lock);
}

void topogen_unlock(void)
{
    pthread_mutex_unlock(&api_lock);
}
