! The message recorder (perftest/msgrec) on Fortran traffic (`use mpi`, which calls mpi_send_ and
! kin, not the C functions): sends of DOUBLE PRECISION, REAL and INTEGER arrays, a broadcast, an
! in-place allreduce (Fortran's MPI_IN_PLACE is an address the recorder must recognise), an
! alltoall and a persistent send. Declares each payload as test_msgrec.c does (msgrec_expect.c,
! through bind(C)) and checks the recorded files after MPI_Finalize. Needs >= 2 ranks.
! Prints "PASS: msgrec_fortran" on success.
program test_msgrec_f
    use mpi
    use iso_c_binding
    implicit none

    interface
        subroutine expect_call() bind(C, name="expect_call")
        end subroutine
        subroutine expect_msg(op, elem, data, bytes, peer, tag) bind(C, name="expect_msg")
            import :: c_char, c_long, c_int, c_ptr
            character(kind=c_char), dimension(*), intent(in) :: op, elem
            type(c_ptr), value :: data
            integer(c_long), value :: bytes
            integer(c_int), value :: peer, tag
        end subroutine
        integer(c_int) function expect_check(rank) bind(C, name="expect_check")
            import :: c_int
            integer(c_int), value :: rank
        end function
    end interface

    integer, parameter :: n = 1024
    double precision, target :: d(n), r(n), blocks(600 * 8), rblocks(600 * 8)
    real, target :: f(2 * n), fr(2 * n)
    integer, target :: iv(1500), ir(1500)
    integer :: rank, nranks, right, left, ierr, i, j, req, preq, failures
    integer :: status(MPI_STATUS_SIZE)

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
    if (nranks < 2 .or. nranks > 8) then
        if (rank == 0) print '(a)', 'FAIL: msgrec_fortran needs 2 to 8 ranks'
        call MPI_Finalize(ierr)
        stop 1
    end if
    right = mod(rank + 1, nranks)
    left = mod(rank + nranks - 1, nranks)

    do i = 1, n
        d(i) = 1000.0d0 * rank + 0.25d0 * i
    end do
    call expect_call()
    call expect_msg(c_str('send'), c_str('f64'), c_loc(d), int(8 * n, c_long), right, 1)
    call MPI_Irecv(r, n, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, req, ierr)
    call MPI_Send(d, n, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, ierr)
    call MPI_Wait(req, status, ierr)

    do i = 1, 2 * n
        f(i) = 0.5 * i + rank
    end do
    call expect_call()
    call expect_msg(c_str('isend'), c_str('f32'), c_loc(f), int(8 * n, c_long), right, 2)
    call MPI_Isend(f, 2 * n, MPI_REAL, right, 2, MPI_COMM_WORLD, req, ierr)
    call MPI_Recv(fr, 2 * n, MPI_REAL, left, 2, MPI_COMM_WORLD, status, ierr)
    call MPI_Wait(req, status, ierr)

    do i = 1, 1500
        iv(i) = 3 * i + rank
    end do
    call expect_call()
    call expect_msg(c_str('isend'), c_str('i32'), c_loc(iv), int(6000, c_long), right, 3)
    call MPI_Isend(iv, 1500, MPI_INTEGER, right, 3, MPI_COMM_WORLD, req, ierr)
    call MPI_Recv(ir, 1500, MPI_INTEGER, left, 3, MPI_COMM_WORLD, status, ierr)
    call MPI_Wait(req, status, ierr)

    call expect_call()
    if (rank == 0) call expect_msg(c_str('bcast'), c_str('f64'), c_loc(d), int(8 * n, c_long), -1, -1)
    call MPI_Bcast(d, n, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)

    do i = 1, n
        d(i) = rank + 0.5d0 * i
    end do
    call expect_call()
    call expect_msg(c_str('allreduce'), c_str('f64'), c_loc(d), int(8 * n, c_long), -1, -1)
    call MPI_Allreduce(MPI_IN_PLACE, d, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)

    do i = 1, 600 * nranks
        blocks(i) = rank * 1.0d4 + i
    end do
    call expect_call()
    do j = 0, nranks - 1
        if (j /= rank) call expect_msg(c_str('alltoall'), c_str('f64'), c_loc(blocks(600 * j + 1)), &
                                       int(4800, c_long), j, -1)
    end do
    call MPI_Alltoall(blocks, 600, MPI_DOUBLE_PRECISION, rblocks, 600, MPI_DOUBLE_PRECISION, &
                      MPI_COMM_WORLD, ierr)

    call MPI_Send_init(d, n, MPI_DOUBLE_PRECISION, right, 4, MPI_COMM_WORLD, preq, ierr)
    do j = 1, 2
        do i = 1, n
            d(i) = j * 10.0d0 + i
        end do
        call expect_call()
        call expect_msg(c_str('send_init'), c_str('f64'), c_loc(d), int(8 * n, c_long), right, 4)
        call MPI_Irecv(r, n, MPI_DOUBLE_PRECISION, left, 4, MPI_COMM_WORLD, req, ierr)
        call MPI_Start(preq, ierr)
        call MPI_Wait(preq, status, ierr)
        call MPI_Wait(req, status, ierr)
    end do
    call MPI_Request_free(preq, ierr)

    call MPI_Finalize(ierr)
    failures = expect_check(rank)
    if (failures /= 0) stop 1
    print '(a, i0)', 'PASS: msgrec_fortran rank ', rank

contains

    function c_str(s) result(cs)
        character(len=*), intent(in) :: s
        character(kind=c_char, len=len(s) + 1) :: cs
        cs = s // c_null_char
    end function

end program test_msgrec_f
